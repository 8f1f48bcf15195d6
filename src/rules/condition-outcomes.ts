import { logFact } from './engine-rules.js'
import type { LogMatches } from './types.js'

// A rule's conditions as json-rules-engine evaluated them in one run (each condition keeps
// its `result`, a fact condition its `factResult`), turned into plain, bounded data that a
// stored diagnosis can keep and the console can show (docs/design.md, "Why this branch").

/** One condition of a rule as evaluated: a fact compared with a value, or a group of conditions. */
export interface ConditionOutcome {
  fact?: string
  /** `$.outcome`; absent for a fact read whole. */
  path?: string
  operator?: string
  /** The value the fact is compared with (a list of patterns is cut to its first 50). */
  value?: unknown
  /**
   * What the fact was in this run, bounded: for the log, the lines its patterns matched
   * (`{pattern, line, text, repeated}`); a list cut to its first 20 items (`more` counts the
   * rest); a text cut to 300 characters. Absent when the engine did not evaluate it.
   */
  actual?: unknown
  /** How many items of a list `actual` left out. */
  more?: number
  all?: ConditionOutcome[]
  any?: ConditionOutcome[]
  not?: ConditionOutcome
  /** Whether it held; null when the engine did not evaluate it. */
  result: boolean | null
}

/** A condition node of a json-rules-engine result, as the engine leaves it after a run. */
export interface ResultNode {
  fact?: string
  path?: string
  operator?: string
  value?: unknown
  factResult?: unknown
  result?: boolean
  all?: ResultNode[]
  any?: ResultNode[]
  not?: ResultNode
}

const maxItems = 20
const maxValueItems = 50
const maxText = 300

const cutText = (text: string) => (text.length > maxText ? `${text.slice(0, maxText)}…` : text)

function boundedValue(value: unknown, items = maxValueItems): unknown {
  if (typeof value === 'string') return cutText(value)
  if (Array.isArray(value)) return value.slice(0, items).map((item) => boundedValue(item, items))
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
  if (value === undefined) return null
  // Facts are read through a path to a plain value; a whole object is named, not copied.
  return '[object]'
}

/** The lines the log's patterns of a `log` condition matched: its `actual`. */
function matchedLines(log: LogMatches, value: unknown) {
  const patterns = ([] as unknown[]).concat(value).filter((p): p is string => typeof p === 'string')
  return patterns.flatMap((pattern) => {
    const match = log.get(pattern)
    return match
      ? [{ pattern: cutText(pattern), line: match.line, text: cutText(match.text), repeated: match.repeated }]
      : []
  })
}

function actualOf(node: ResultNode): Pick<ConditionOutcome, 'actual' | 'more'> {
  if (!('factResult' in node)) return {}
  const fact = node.factResult
  const list = node.fact === logFact && fact instanceof Map ? matchedLines(fact as LogMatches, node.value) : fact
  if (!Array.isArray(list)) return { actual: boundedValue(list) }
  const shown = list === fact ? (boundedValue(list, maxItems) as unknown[]) : list.slice(0, maxItems)
  return list.length > maxItems ? { actual: shown, more: list.length - maxItems } : { actual: shown }
}

/** A result node as a ConditionOutcome, its whole tree. */
export function conditionOutcome(node: ResultNode): ConditionOutcome {
  const result = typeof node.result === 'boolean' ? node.result : null
  if (node.all) return { all: node.all.map(conditionOutcome), result }
  if (node.any) return { any: node.any.map(conditionOutcome), result }
  if (node.not) return { not: conditionOutcome(node.not), result }
  return {
    ...(node.fact === undefined ? {} : { fact: node.fact }),
    ...(node.path ? { path: node.path } : {}),
    ...(node.operator === undefined ? {} : { operator: node.operator }),
    value: boundedValue(node.value),
    ...actualOf(node),
    result,
  }
}

/** A condition tree as evaluated, raw (ResultNode) or converted (ConditionOutcome). */
export interface EvaluatedNode {
  fact?: string
  result?: boolean | null
  all?: EvaluatedNode[]
  any?: EvaluatedNode[]
  not?: EvaluatedNode
}

/** Whether a condition that held found something, rather than the absence of something (a `not`). */
export function heldPositively(node: EvaluatedNode): boolean {
  if (node.result !== true || node.not) return false
  const children = node.all ?? node.any
  if (children) return children.some(heldPositively)
  return true
}

/** Whether a condition tests the `findings` fact: the fallbacks' "no other rule matched". */
export function testsFindings(node: EvaluatedNode): boolean {
  if (node.fact === 'findings') return true
  return [...(node.all ?? []), ...(node.any ?? []), ...(node.not ? [node.not] : [])].some(testsFindings)
}
