// Generated from schemas/api-tokens.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

/**
 * @minItems 1
 * @maxItems 100
 */
export type ApiTokenFile = ({
  [k: string]: unknown
} & {
  name: string
  token?: string
  sha256?: string
  expiresAt?: string
  /**
   * What the token may do; absent: all three (the behaviour before scopes existed)
   *
   * @minItems 1
   */
  scopes?: ('webhook' | 'rules:write' | 'read')[]
})[]
