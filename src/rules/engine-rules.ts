import type { RuleProperties } from 'json-rules-engine'
import type { Condition, TopCondition } from '../schema-types/builtin-rule-file.js'
import { type CatalogueRule, type CustomRule, isBuiltin } from './types.js'

// Catalogue rules as json-rules-engine rules (docs/design.md, "Rules"). A built-in rule is
// its JSON file's conditions as written; a custom rule becomes "the log matches its pattern,
// and the alert is its ruleId when it has one". Every rule's event is a finding whose
// params carry what the report ranks and says.

/** The fact a `matches` condition tests: what the shared scanner found in the log excerpt. */
export const logFact = 'log'
/**
 * The operator: the log excerpt has a line that matches the pattern (the condition's value),
 * or one of the patterns when the value is a list. One condition for a list rather than an
 * `any` of one condition each: the engine evaluates one instead of up to eleven.
 */
export const matchesOperator = 'matches'

/** `log matches value`: the scanner found a line for the pattern, or for one in the list. */
export function matches(log: unknown, value: unknown): boolean {
  if (!(log instanceof Map)) return false
  return Array.isArray(value) ? value.some((pattern) => log.has(pattern)) : log.has(value)
}

/**
 * Custom rules outrank built-ins of the same classification (an operator's rule is more
 * specific to its own applications); the fallbacks TD-07 and TD-08 run last, at priority 1.
 */
const customPriority = { confirmed_cause: 90, probable_cause: 60 } as const

export interface FindingParams {
  /** The catalogue id of the rule: `builtin-TD-02` or a custom rule's number. */
  rule: string | number
  branch: string
  classification: CatalogueRule['classification']
  confidence: CatalogueRule['confidence']
}

/** The engine's name for a rule: unique across built-ins and custom rules. */
export const engineName = (rule: CatalogueRule) => String(rule.id)

function priorityOf(rule: CatalogueRule): number {
  return isBuiltin(rule) ? rule.priority : customPriority[rule.classification]
}

function conditionsOf(rule: CatalogueRule): TopCondition {
  if (isBuiltin(rule)) return rule.conditions
  return customConditions(rule)
}

function customConditions(rule: CustomRule): TopCondition {
  const all: Condition[] = [{ fact: logFact, operator: matchesOperator, value: rule.pattern }]
  if (rule.ruleId) all.push({ fact: 'alert', path: '$.alertname', operator: 'equal', value: rule.ruleId })
  return { all }
}

export function engineRule(rule: CatalogueRule): RuleProperties {
  const params: FindingParams = {
    rule: rule.id,
    branch: rule.branch,
    classification: rule.classification,
    confidence: rule.confidence,
  }
  return {
    name: engineName(rule),
    priority: priorityOf(rule),
    conditions: conditionsOf(rule) as RuleProperties['conditions'],
    event: { type: 'finding', params: params as unknown as Record<string, unknown> },
  }
}

/** The log patterns a condition tree tests, in the order written. */
export function patternsOf(condition: Condition): string[] {
  if ('fact' in condition) {
    if (condition.fact !== logFact || condition.operator !== matchesOperator) return []
    return ([] as unknown[]).concat(condition.value).filter((value): value is string => typeof value === 'string')
  }
  const children = [...(condition.all ?? []), ...(condition.any ?? []), ...(condition.not ? [condition.not] : [])]
  return children.flatMap(patternsOf)
}
