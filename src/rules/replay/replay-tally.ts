import type { CustomRule } from '../types.js'
import { type ReplayAddition, type ReplayChange, type ReplayResult, replayBounds } from './replay-types.js'

/** A replay's outcomes as they come, bounded: the lists keep their first `replayBounds.listed`, newest first. */
export class ReplayTally {
  unchanged = 0
  unreadable = 0
  private evaluated = 0
  private matches = 0
  private truncated = 0
  private readonly changes: ReplayChange[] = []
  private readonly additions: ReplayAddition[] = []
  private readonly omitted = { changed: 0, added: 0 }
  private readonly perCandidate = new Map<number, number>()
  private readonly costs = { events: 0, candidates: 0, candidatesMax: 0, catalogue: 0 }

  constructor(
    private readonly candidates: readonly CustomRule[],
    private readonly requested: number,
  ) {}

  /** One event evaluated: whether its bundle was cut, and the candidates that matched it. */
  seen(truncated: boolean, matched: readonly number[]): void {
    this.evaluated++
    if (truncated) this.truncated++
    if (matched.length > 0) this.matches++
    for (const id of matched) this.perCandidate.set(id, (this.perCandidate.get(id) ?? 0) + 1)
  }

  /** CPU milliseconds one event cost the candidates, and the catalogue alone. */
  cost(candidatesMs: number, catalogueMs: number): void {
    this.costs.events++
    this.costs.candidates += candidatesMs
    this.costs.candidatesMax = Math.max(this.costs.candidatesMax, candidatesMs)
    this.costs.catalogue += catalogueMs
  }

  changed(change: ReplayChange): void {
    if (this.changes.length < replayBounds.listed) this.changes.push(change)
    else this.omitted.changed++
  }

  added(addition: ReplayAddition): void {
    if (this.additions.length < replayBounds.listed) this.additions.push(addition)
    else this.omitted.added++
  }

  result(): ReplayResult {
    const { events, candidates, candidatesMax, catalogue } = this.costs
    const micros = (ms: number) => Math.round(ms * 1000)
    return {
      candidates: this.candidates.map(({ id, branch, ruleName }) => ({
        id,
        branch,
        ruleName,
        matches: this.perCandidate.get(id) ?? 0,
      })),
      requested: this.requested,
      evaluated: this.evaluated,
      changed: this.changes,
      added: this.additions,
      unchanged: this.unchanged,
      matches: this.matches,
      truncatedBundles: this.truncated,
      unreadable: this.unreadable,
      omitted: { ...this.omitted },
      cost: {
        events,
        candidatesMicros: { mean: events ? micros(candidates / events) : 0, max: micros(candidatesMax) },
        catalogueMicros: { mean: events ? micros(catalogue / events) : 0 },
      },
    }
  }
}
