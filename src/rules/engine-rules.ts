import type { RuleProperties } from 'json-rules-engine'
import type { Condition, TopCondition } from '../schema-types/builtin-rule-file.js'
import {
  exceptionSignature,
  exceptionSignatureOf,
  handledOnly,
  quotedOnly,
  recurringSignature,
} from './exception-conditions.js'
import { type CatalogueRule, type CustomRule, isBuiltin, type LogMatches } from './types.js'

// Catalogue rules as json-rules-engine rules (docs/design.md, "Rules"). A built-in rule is
// its JSON file's conditions as written; a custom rule becomes "the log matches its pattern
// (or holds an exception of its classes or meanings), and the alert is its ruleId when it
// has one". Every rule's event is a finding whose params carry what the report ranks and says.

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

/** The operator of a repeated signature: the patterns (the value) matched two lines or more. */
export const repeatedOperator = 'matchesRepeatedly'

export function matchesRepeatedly(log: unknown, value: unknown): boolean {
  if (!(log instanceof Map)) return false
  const lines = new Set<number>()
  for (const pattern of ([] as unknown[]).concat(value)) {
    const match = (log as LogMatches).get(pattern as string)
    if (!match) continue
    if (match.repeated) return true
    lines.add(match.line)
  }
  return lines.size >= 2
}

/** The engine's name for the shared condition of builtin-rules/corroboration.json. */
export const corroborationCondition = 'corroborating-evidence'
/** The engine rule of a confirmed cause whose signature was found without corroboration. */
const uncorroboratedSuffix = '/uncorroborated'

/**
 * Custom rules outrank built-ins of the same classification (an operator's rule is more
 * specific to its own applications); the fallbacks TD-07 and TD-08 run last, at priority 1.
 */
const customPriority = { confirmed_cause: 90, probable_cause: 60 } as const
/** A built-in confirmed cause without corroboration ranks with the probable causes of its family (80 -> 50). */
const uncorroboratedDrop = 30

export interface FindingParams {
  /** The catalogue id of the rule: `builtin-TD-02` or a custom rule's number. */
  rule: string | number
  branch: string
  /** What the evidence earned: a confirmed cause without corroboration is a probable one. */
  classification: CatalogueRule['classification']
  confidence: CatalogueRule['confidence']
  /** Whether the confirmation was corroborated; null for a rule that states its own classification. */
  corroborated: boolean | null
}

/** The engine's name for a rule: unique across built-ins and custom rules. */
export const engineName = (rule: CatalogueRule) => String(rule.id)

/** A built-in's priority is in its file; a custom rule's is its own, or follows from its classification. */
function priorityOf(rule: CatalogueRule): number {
  return isBuiltin(rule) ? rule.priority : (rule.priority ?? customPriority[rule.classification])
}

/** Where a confirmed cause without corroboration ranks: 30 lower, or with the custom probable causes. */
function uncorroboratedPriority(rule: CatalogueRule): number {
  if (isBuiltin(rule) || rule.priority !== null) return Math.max(2, priorityOf(rule) - uncorroboratedDrop)
  return customPriority.probable_cause
}

/** A catalogue rule's own conditions: what its engine rules test besides corroboration. */
export function conditionsOf(rule: CatalogueRule): TopCondition {
  if (isBuiltin(rule)) return rule.conditions
  return customConditions(rule)
}

function customConditions(rule: CustomRule): TopCondition {
  const pattern: Condition = { fact: logFact, operator: matchesOperator, value: rule.pattern }
  const exceptions = exceptionSignature(rule.exceptionClass ?? [], rule.exceptionMeaning ?? [])
  const all: Condition[] = [exceptions.length > 0 ? { any: [pattern, ...exceptions] } : pattern]
  if (rule.ruleId) all.push({ fact: 'alert', path: '$.alertname', operator: 'equal', value: rule.ruleId })
  return { all }
}

/** The log patterns a catalogue rule tests: a built-in's from its conditions, a custom rule's one. */
export const rulePatterns = (rule: CatalogueRule): string[] => (isBuiltin(rule) ? rule.patterns : [rule.pattern])

/** Whether the rule's confirmation must be earned: a confirmed cause that rests on log lines or exceptions. */
function isEarned(rule: CatalogueRule): boolean {
  const { classes, meanings } = exceptionSignatureOf(rule)
  const fromLogs = rulePatterns(rule).length + classes.length + meanings.length > 0
  return rule.classification === 'confirmed_cause' && fromLogs
}

/**
 * What corroborates a rule's signature (docs/design.md, "Confidence is earned"): the
 * signature repeated on another line (its patterns, or its exception classes or meanings on
 * two records), the rule's own `corroboratedBy` facts, or the shared ones (a failing probe,
 * a container that was OOM-killed, crashed or exited in error). Never when every exception
 * of the rule's meanings was logged as handled.
 */
function corroboration(rule: CatalogueRule): TopCondition {
  const patterns = rulePatterns(rule)
  const own = isBuiltin(rule) ? (rule.corroboratedBy ?? []) : []
  const shared = { condition: corroborationCondition } as unknown as Condition
  const { classes, meanings } = exceptionSignatureOf(rule)
  const consequences = isBuiltin(rule) ? rule.consequences : undefined
  const lines = { fact: logFact, operator: repeatedOperator, value: patterns } as unknown as Condition
  // A banner says that the start failed, not why: repeated (once per attempt), it corroborates
  // only with a line of a cause the rule names beside it.
  const causes = patterns.filter((p) => !consequences?.patterns?.includes(p))
  const cause = { fact: logFact, operator: matchesOperator, value: causes } as unknown as Condition
  const withCause: Condition = causes.length < patterns.length ? { all: [lines, cause] } : lines
  // Words repeated inside another failure's message are not the rule's failure repeated.
  const quoted = quotedOnly(meanings)
  const repeated: Condition = quoted ? { all: [withCause, { not: quoted }] } : withCause
  const recurring = meanings.filter((m) => !consequences?.meanings?.includes(m))
  const earned: TopCondition = { any: [repeated, ...recurringSignature(classes, recurring), ...own, shared] }
  const handled = handledOnly(meanings)
  return handled ? { all: [earned, { not: handled }] } : earned
}

/**
 * The engine rules of a catalogue rule: one, or for a confirmed cause found in the logs
 * two that exclude each other, the signature with corroboration (confirmed) and without
 * (probable, at the probable priority). The engine decides which.
 */
export function engineRules(rule: CatalogueRule): RuleProperties[] {
  const name = engineName(rule)
  const priority = priorityOf(rule)
  const conditions = conditionsOf(rule)
  const finding = (params: Omit<FindingParams, 'rule' | 'branch'>) =>
    ({ type: 'finding', params: { rule: rule.id, branch: rule.branch, ...params } }) as RuleProperties['event']
  const asEngine = (top: TopCondition) => top as RuleProperties['conditions']
  if (!isEarned(rule)) {
    const params = { classification: rule.classification, confidence: rule.confidence, corroborated: null }
    return [{ name, priority, conditions: asEngine(conditions), event: finding(params) }]
  }
  const corroborated = corroboration(rule)
  return [
    {
      name,
      priority,
      conditions: asEngine({ all: [conditions, corroborated] }),
      event: finding({ classification: 'confirmed_cause', confidence: 'high', corroborated: true }),
    },
    {
      name: `${name}${uncorroboratedSuffix}`,
      priority: uncorroboratedPriority(rule),
      conditions: asEngine({ all: [conditions, { not: corroborated }] }),
      event: finding({ classification: 'probable_cause', confidence: 'medium', corroborated: false }),
    },
  ]
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
