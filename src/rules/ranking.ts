import type { Finding } from './findings.js'
import { isBuiltin } from './types.js'

const classificationRank = { confirmed_cause: 0, probable_cause: 1, undetermined: 2 } as const

/** A finding with what its rank needs from the run. */
export interface Ranked {
  finding: Finding
  /** Its engine rule's priority. */
  priority: number
  /** How deep in a `Caused by:` chain its lines matched (the deepest). */
  depth: number
  /**
   * Whether the exception reader read the trace this finding matched in as another
   * failure than the finding says (the kind of failure its deepest cause shows, made the
   * component's own): the finding is that trace's wrapper or a symptom of it.
   */
  contradicted: boolean
}

/** The criteria of the ranking, in the order they decide (docs/design.md, "Ranking"). */
export type RankingCriterion = 'earned' | 'contradicted' | 'causeDepth' | 'priority' | 'order'

/** What a criterion reads of a finding, as the console and the API show it. */
type CriterionValue = string | number | boolean

interface Criterion {
  name: RankingCriterion
  /** Negative when `a` ranks first. */
  compare(a: Ranked, b: Ranked): number
  value(r: Ranked): CriterionValue
}

/** Built-ins by branch, then custom rules by id: a total order, whatever the order of registration. */
function catalogueOrder(a: Ranked, b: Ranked): number {
  const ra = a.finding.rule
  const rb = b.finding.rule
  if (!isBuiltin(ra) && !isBuiltin(rb)) return ra.id - rb.id
  if (isBuiltin(ra) !== isBuiltin(rb)) return isBuiltin(ra) ? -1 : 1
  return ra.branch.localeCompare(rb.branch)
}

const criteria: readonly Criterion[] = [
  {
    name: 'earned',
    compare: (a, b) => classificationRank[a.finding.classification] - classificationRank[b.finding.classification],
    value: (r) => r.finding.classification,
  },
  {
    name: 'contradicted',
    compare: (a, b) => (a.contradicted === b.contradicted ? 0 : a.contradicted ? 1 : -1),
    value: (r) => r.contradicted,
  },
  { name: 'causeDepth', compare: (a, b) => b.depth - a.depth, value: (r) => r.depth },
  { name: 'priority', compare: (a, b) => b.priority - a.priority, value: (r) => r.priority },
  {
    name: 'order',
    compare: catalogueOrder,
    value: (r) => (isBuiltin(r.finding.rule) ? `built-in ${r.finding.rule.branch}` : `custom #${r.finding.rule.id}`),
  },
]

/**
 * The ranking (docs/design.md, "Ranking"): what the evidence earned (confirmed, probable,
 * undetermined); within it the findings the exception reader does not contradict first (for
 * a trace, the deepest cause decides the kind of failure, the wrapper or frame that names a
 * component decides whose);
 * then the root cause before its wrappers (a finding matched deeper in a `Caused by:` chain
 * first); then the rules' priorities; then built-ins by branch and custom rules by id. A
 * total order, so the result does not depend on the order rules were added or evaluated in.
 */
export function byRank(a: Ranked, b: Ranked): number {
  for (const criterion of criteria) {
    const order = criterion.compare(a, b)
    if (order !== 0) return order
  }
  return 0
}

/** Why one finding ranks before another: the first criterion that tells them apart, with both values. */
export interface RankingReason {
  criterion: RankingCriterion
  /** The value of the finding that ranks first. */
  first: CriterionValue
  /** The value of the one it outranked. */
  second: CriterionValue
}

/** The criterion that put `first` before `second`, as `byRank` decided it. */
export function rankingReason(first: Ranked, second: Ranked): RankingReason {
  const deciding =
    criteria.find((criterion) => criterion.compare(first, second) !== 0) ?? (criteria.at(-1) as Criterion)
  return { criterion: deciding.name, first: deciding.value(first), second: deciding.value(second) }
}
