// Generated from schemas/event-record-v1.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

/**
 * Written by a separate collector; read-only to the service. Known fields are typed; other fields are kept as they are.
 */
export interface SpoolRecord {
  timestamp: string
  container?: string
  instance?: string
  exitCode?: number | null
  oomKilled?: boolean
  event?: string
  [k: string]: unknown
}
