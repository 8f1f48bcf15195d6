import type { Finding } from './diagnosis-engine.js'
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
  const byEarned = classificationRank[a.finding.classification] - classificationRank[b.finding.classification]
  if (byEarned !== 0) return byEarned
  if (a.contradicted !== b.contradicted) return a.contradicted ? 1 : -1
  if (a.depth !== b.depth) return b.depth - a.depth
  if (a.priority !== b.priority) return b.priority - a.priority
  const ra = a.finding.rule
  const rb = b.finding.rule
  if (!isBuiltin(ra) && !isBuiltin(rb)) return ra.id - rb.id
  if (isBuiltin(ra) !== isBuiltin(rb)) return isBuiltin(ra) ? -1 : 1
  return ra.branch.localeCompare(rb.branch)
}
