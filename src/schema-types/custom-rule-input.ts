// Generated from schemas/rulepack-v1.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

/**
 * One rule object. classification and confidence are accepted in any case and stored lower-case; confirmed_cause pairs with high, probable_cause with medium.
 */
export type CustomRuleInput = {
  /**
   * alertname the rule is limited to; absent or null: every alert
   */
  ruleId?: string | null
  branch: string
  /**
   * PascalCase or camelCase, unique
   */
  ruleName: string
  category:
    | 'jvm_memory'
    | 'concurrency_threading'
    | 'database_persistence'
    | 'network_integration'
    | 'application_lifecycle'
    | 'storage_os_limits'
    | 'security_session'
    | 'general'
  targetSource: 'local_file'
  /**
   * /source/flags (flags from i, m, s, u) is a regular expression; anything else a literal, case-sensitive substring
   */
  pattern: string
  /**
   * Exception classes the rule also matches, each with its subclasses by the exception taxonomy (builtin-rules/exception-taxonomy.json), anywhere in a logged exception's Caused by chain; stored as a list (docs/api.md)
   */
  exceptionClass?: ExceptionClassName | ExceptionClassName[]
  /**
   * Meanings of the exception taxonomy the rule also matches: what the deepest cause of a logged exception (or its SQLSTATE, vendor code or errno) says failed, made the component's own; stored as a list (docs/api.md)
   */
  exceptionMeaning?: ExceptionMeaning | ExceptionMeaning[]
  assessment: string
  classification: string
  confidence: string
  /**
   * Rank among findings of the same earned classification, higher first (docs/design.md, "Ranking"); absent or null: 90 for a confirmed cause, 60 for a probable one. Built-in rules rank at 77 to 80 (confirmed) and 47 to 50 (probable).
   */
  priority?: number | null
  /**
   * @minItems 1
   * @maxItems 10
   */
  recommendedActions: string[]
  createdBy?: string
}
/**
 * a fully qualified class name, as a stack trace prints it
 */
export type ExceptionClassName = string
/**
 * a meaning of builtin-rules/exception-taxonomy.json
 */
export type ExceptionMeaning = string
