import type { CustomRule } from '../rules/types.js'

// A custom rule's row, as both storage adapters read it.

export interface RuleRow {
  id: number
  rule_id: string | null
  branch: string
  rule_name: string
  category: CustomRule['category']
  target_source: 'local_file'
  pattern: string
  /** JSON array of strings, or null. */
  exception_class: string | null
  exception_meaning: string | null
  assessment: string
  classification: CustomRule['classification']
  confidence: CustomRule['confidence']
  priority: number | null
  recommended_actions: string
  created_by: string
  created_at: string
}

export function toRule(row: RuleRow): CustomRule {
  return {
    id: row.id,
    ruleId: row.rule_id,
    branch: row.branch,
    ruleName: row.rule_name,
    category: row.category,
    targetSource: row.target_source,
    pattern: row.pattern,
    exceptionClass: row.exception_class === null ? null : (JSON.parse(row.exception_class) as string[]),
    exceptionMeaning: row.exception_meaning === null ? null : (JSON.parse(row.exception_meaning) as string[]),
    assessment: row.assessment,
    classification: row.classification,
    confidence: row.confidence,
    priority: row.priority,
    recommendedActions: JSON.parse(row.recommended_actions) as string[],
    createdBy: row.created_by,
    createdAt: row.created_at,
  }
}

/** A rule's exception lists as their columns store them: JSON, or null. */
export const exceptionColumns = (rule: Pick<CustomRule, 'exceptionClass' | 'exceptionMeaning'>) => ({
  exceptionClass: rule.exceptionClass ? JSON.stringify(rule.exceptionClass) : null,
  exceptionMeaning: rule.exceptionMeaning ? JSON.stringify(rule.exceptionMeaning) : null,
})
