import type { Outcome, ReplayResult } from '../rules/replay/replay-types.js'
import { rankingView, ruleView, words } from './explanation-view.js'
import { shownTime } from './time-words.js'

// A replay's result as the replay page shows it (docs/design.md, "Replay"): the incidents
// whose primary finding would change, before -> after with the conditions that decided and
// the ranking criterion over the old primary; those where a candidate only adds a finding;
// the count left unchanged, the candidates' matches and their CPU cost per event.

const outcome = (o: Outcome) => ({
  branch: o.branch,
  ruleName: o.ruleName,
  classification: words(o.classification),
  confidence: o.confidence,
})

const incident = (e: { incidentId: string; alertname: string; instance: string; diagnosedAt: string }) => ({
  href: `/console/incidents/${encodeURIComponent(e.incidentId)}`,
  alertname: e.alertname,
  instance: e.instance,
  diagnosedAt: shownTime(e.diagnosedAt),
})

const micros = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${Math.round(us)} µs`)

export function replayView(result: ReplayResult) {
  return {
    candidates: result.candidates,
    requested: result.requested,
    evaluated: result.evaluated,
    matches: result.matches,
    unchanged: result.unchanged,
    truncatedBundles: result.truncatedBundles,
    unreadable: result.unreadable,
    cost: {
      candidatesMean: micros(result.cost.candidatesMicros.mean),
      candidatesMax: micros(result.cost.candidatesMicros.max),
      catalogueMean: micros(result.cost.catalogueMicros.mean),
    },
    changed: result.changed.map((change) => ({
      ...incident(change),
      before: outcome(change.before),
      after: outcome(change.after),
      decidedBy: change.decidedBy && ruleView(change.decidedBy, true),
      outranked: change.outranked && rankingView(change.outranked),
    })),
    added: result.added.map((addition) => ({
      ...incident(addition),
      primary: outcome(addition.primary),
      added: addition.added.map(outcome),
    })),
    omitted: result.omitted,
  }
}
