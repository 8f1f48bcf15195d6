import type { ConditionOutcome, RuleExplanation } from '../rules/explanation.js'
import type { RankingCriterion, RankingReason } from '../rules/ranking.js'

// A diagnosis's explanation as the console shows it (docs/design.md, "Why this branch"): each
// rule as a table of its conditions, one row per condition with its fact, operator, the
// value it is compared with, the fact's value in that run and whether it held; and each
// ranking decision in words. The incident page and the replay's result use the same view.

/** One condition as a row; a group (`all`, `any`, `not`) is a row above its members. */
export interface ConditionRow {
  /** How deep in the tree (0 for the top), shown as indentation by a class of the stylesheet. */
  depth: number
  group: string | null
  fact: string | null
  operator: string | null
  expected: string[]
  /** More values than a cell shows open: they fold into a <details>. */
  manyExpected: boolean
  actual: string[]
  held: 'held' | 'failed' | 'not evaluated'
  /** Its class in the stylesheet. */
  heldClass: 'held' | 'failed' | 'unevaluated'
  /** The one member of an almost matched rule's `all` that failed. */
  failedMember: boolean
}

export interface RuleView {
  branch: string
  ruleName: string
  /** Its catalogue id: `builtin-TD-02`, or a custom rule's number. */
  rule: string
  outcome: string
  matched: boolean
  classification: string
  confidence: string | null
  corroborated: string | null
  priority: number
  conditions: ConditionRow[]
}

const operators: Record<string, string> = {
  equal: '=',
  notEqual: '≠',
  lessThan: '<',
  lessThanInclusive: '≤',
  greaterThan: '>',
  greaterThanInclusive: '≥',
  in: 'is one of',
  notIn: 'is none of',
  contains: 'contains',
  doesNotContain: 'does not contain',
  matches: 'matches',
  matchesRepeatedly: 'matches on 2 lines or more',
}

/** Words for a stored value: a list is its items, anything else one text. */
function shown(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => shown(item).join(', '))
  if (value === undefined) return []
  if (typeof value === 'string') return [value]
  return [JSON.stringify(value)]
}

type LogLine = { pattern: string; line: number; text: string; repeated?: number }
const isLogLine = (value: unknown): value is LogLine =>
  typeof value === 'object' && value !== null && 'line' in value && 'text' in value

/** The fact's value in the run: for the log, the lines its patterns matched. */
function actualOf(node: ConditionOutcome): string[] {
  if (!('actual' in node)) return []
  const items = Array.isArray(node.actual)
    ? node.actual.map((item) =>
        isLogLine(item)
          ? `line ${item.line}: ${item.text}${item.repeated && item.repeated > 1 ? ` (${item.repeated} times)` : ''}`
          : shown(item).join(', '),
      )
    : shown(node.actual)
  // Two patterns of a list can match the same line: it is shown once.
  const lines = [...new Set(items)]
  if (node.fact === 'log' && lines.length === 0) lines.push('no line matched')
  if (node.more) lines.push(`and ${node.more} more`)
  return lines
}

const heldWords = (result: boolean | null) => (result === null ? 'not evaluated' : result ? 'held' : 'failed')

/** The condition tree as rows, depth first, in the order the rule writes them. */
export function conditionRows(node: ConditionOutcome, failedMember: number | null = null): ConditionRow[] {
  const rows: ConditionRow[] = []
  const walk = (n: ConditionOutcome, depth: number, failed: boolean) => {
    const members = n.all ?? n.any ?? (n.not ? [n.not] : null)
    const group = n.all ? 'all of these' : n.any ? 'any of these' : n.not ? 'not this' : null
    const expected = group ? [] : shown(n.value)
    rows.push({
      depth: Math.min(depth, 6),
      group,
      fact: group ? null : `${n.fact ?? ''}${n.path ? ` ${n.path}` : ''}`,
      operator: group ? null : (operators[n.operator ?? ''] ?? n.operator ?? null),
      expected,
      manyExpected: expected.length > 5,
      actual: group ? [] : actualOf(n),
      held: heldWords(n.result),
      heldClass: n.result === null ? 'unevaluated' : n.result ? 'held' : 'failed',
      failedMember: failed,
    })
    for (const [i, member] of (members ?? []).entries()) walk(member, depth + 1, depth === 0 && i === failedMember)
  }
  walk(node, 0, false)
  return rows
}

export const words = (value: string | null) => (value === null ? null : value.replaceAll('_', ' '))

export function ruleView(rule: RuleExplanation, primary = false): RuleView {
  const matched = rule.outcome === 'matched'
  return {
    branch: rule.branch,
    ruleName: rule.ruleName,
    rule: String(rule.rule),
    outcome: matched
      ? primary
        ? 'matched: the primary finding'
        : 'matched'
      : `almost matched: member ${(rule.failedMember ?? 0) + 1} of its conditions failed, every other held`,
    matched,
    classification: words(rule.classification) as string,
    confidence: rule.confidence,
    corroborated: rule.corroborated === null ? null : rule.corroborated ? 'corroborated' : 'not corroborated',
    priority: rule.priority,
    conditions: conditionRows(rule.conditions, rule.failedMember),
  }
}

const criteria: Record<RankingCriterion, string> = {
  earned: 'what the evidence earned: confirmed, then probable, then undetermined',
  contradicted: 'the exception reader: a finding it contradicts ranks after',
  causeDepth: 'the root cause before its wrappers: matched deeper in a Caused by: chain',
  priority: "the rules' priorities, higher first",
  order: 'catalogue order: built-ins by branch, then custom rules by id',
}

function criterionValue(criterion: RankingCriterion, value: string | number | boolean): string {
  if (criterion === 'contradicted') return value ? 'contradicted' : 'not contradicted'
  if (criterion === 'causeDepth') return value === 0 ? 'not in a trace’s causes' : `cause ${value} deep`
  if (criterion === 'priority') return `priority ${value}`
  return words(String(value)) as string
}

/** Why the primary (or a replay's new primary) ranks before another finding, in words. */
export function rankingView(reason: RankingReason & { branch: string }) {
  return {
    branch: reason.branch,
    criterion: criteria[reason.criterion] ?? reason.criterion,
    first: criterionValue(reason.criterion, reason.first),
    second: criterionValue(reason.criterion, reason.second),
  }
}
