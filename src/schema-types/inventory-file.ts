// Generated from schemas/inventory.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

/**
 * Keys of `instances` are exact appserver_instance label values. Relative paths resolve against this file's folder. Every file and folder must lie under one of `roots` (default: this file's folder) after symlinks are resolved.
 */
export interface InventoryFile {
  $schema?: string
  /**
   * @minItems 1
   * @maxItems 64
   */
  roots?: string[]
  instances: {
    [k: string]: {
      /**
       * @maxItems 32
       */
      logs?: string[]
      spoolDir?: string
      container?: string
      metricsUrl?: string
      healthUrl?: string
    }
  }
}
