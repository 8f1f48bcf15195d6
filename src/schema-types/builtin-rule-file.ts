// Generated from schemas/builtin-rules.schema.json by src/schema-types/generate-schema-types.mjs (npm run build): do not edit.

export type Rule = {
  branch: string
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
  classification: 'confirmed_cause' | 'probable_cause' | 'undetermined'
  confidence: 'high' | 'medium' | null
  /**
   * json-rules-engine priority: higher runs first and ranks first among the findings (docs/design.md, "Ranking")
   */
  priority: number
  assessment: string
  /**
   * @minItems 4
   * @maxItems 4
   */
  recommendedActions: string[]
  conditions: TopCondition
  /**
   * Facts that corroborate a confirmed cause besides the shared ones (builtin-rules/corroboration.json) and a repeated signature: without any, the finding is a probable cause (docs/design.md, "Confidence is earned")
   *
   * @minItems 1
   * @maxItems 10
   */
  corroboratedBy?: Condition[]
  /**
   * The rule's own patterns and exception meanings that report its failure as the consequence of a cause written elsewhere (a start-up failure's banner): they find the rule, but repeated they corroborate nothing; a line of another of its patterns beside them does (docs/design.md, "Confidence is earned")
   */
  consequences?: {
    /**
     * @minItems 1
     */
    patterns?: string[]
    /**
     * @minItems 1
     */
    meanings?: string[]
  }
}
export type Condition =
  | TopCondition
  | {
      /**
       * exception* facts: lists derived from the exception records of the log (docs/design.md, "Exceptions and codes"), tested with contains or doesNotContain
       */
      fact:
        | 'log'
        | 'findings'
        | 'gc'
        | 'container'
        | 'metrics'
        | 'probe'
        | 'evidence'
        | 'alert'
        | 'exceptionMeanings'
        | 'exceptionMeaningsRecurring'
        | 'exceptionMeaningsHandled'
        | 'exceptionBranches'
        | 'exceptionClasses'
        | 'exceptionClassesRecurring'
      path?: string
      operator:
        | 'matches'
        | 'equal'
        | 'notEqual'
        | 'lessThan'
        | 'lessThanInclusive'
        | 'greaterThan'
        | 'greaterThanInclusive'
        | 'in'
        | 'notIn'
        | 'contains'
        | 'doesNotContain'
      value: unknown
    }

export interface BuiltinRuleFile {
  $schema?: string
  family: 'TD' | 'AH' | 'GC' | 'TH'
  version: string
  /**
   * @minItems 1
   */
  rules: Rule[]
}
export interface TopCondition {
  /**
   * @minItems 1
   */
  all?: Condition[]
  /**
   * @minItems 1
   */
  any?: Condition[]
  not?: Condition
}
