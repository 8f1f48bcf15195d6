import { PatternIndex } from '../../text/pattern-index.js'
import type { Family } from '../builtin-loader.js'
import type { DecodedBundle } from '../bundle/evidence-bundle.js'
import { replayEvidence } from '../bundle/replay-evidence.js'
import { type Diagnosis, DiagnosisEngine } from '../diagnosis-engine.js'
import type { Finding } from '../findings.js'
import { type CpuClock, threadCpuMs } from '../thread-cpu.js'
import { type BuiltinRule, type CustomRule, isBuiltin, type LogMatches } from '../types.js'
import { ReplayTally } from './replay-tally.js'
import type { Outcome, ReplayBundle, ReplayResult } from './replay-types.js'

const outcomeOf = (finding: Finding): Outcome => ({
  branch: finding.rule.branch,
  ruleName: finding.rule.ruleName,
  classification: finding.classification,
  confidence: finding.confidence,
})

const sameOutcome = (a: Outcome, b: Outcome) =>
  a.branch === b.branch && a.classification === b.classification && a.confidence === b.confidence

/**
 * A replay's evaluation (docs/design.md, "Replay"): two engines of its own, never the live
 * ones, built from the built-ins and the custom rules registered so far, the second with the
 * candidates added. Each stored bundle becomes the evidence its diagnosis had (with the
 * candidates' patterns scanned in its excerpt), runs on both, and the outcomes are compared.
 * CPU time is counted on this thread: the candidates' scan and the engine time they add,
 * and what the catalogue alone costs on the same events.
 */
export class ReplayEvaluation {
  private readonly baseline: DiagnosisEngine
  private readonly withCandidates: DiagnosisEngine
  /** The candidates' own patterns: each bundle's excerpt is scanned for them apart, to count their cost. */
  private readonly candidateIndex: PatternIndex | null
  private readonly candidateIds: ReadonlySet<number>
  private readonly tally: ReplayTally

  constructor(
    builtin: { rules: readonly BuiltinRule[]; versions: Record<Family, string> },
    custom: readonly CustomRule[],
    candidates: readonly CustomRule[],
    requested: number,
    private readonly clock: CpuClock = threadCpuMs,
  ) {
    this.baseline = new DiagnosisEngine(builtin.rules, builtin.versions, custom)
    this.withCandidates = new DiagnosisEngine(builtin.rules, builtin.versions, [...custom, ...candidates])
    const known = new Set(custom.map((rule) => rule.pattern))
    const own = [...new Set(candidates.map((rule) => rule.pattern))].filter((pattern) => !known.has(pattern))
    this.candidateIndex = own.length > 0 ? PatternIndex.fromSources(own.map((p) => ({ key: p, source: p }))) : null
    this.candidateIds = new Set(candidates.map((rule) => rule.id))
    this.tally = new ReplayTally(candidates, requested)
  }

  /** One stored bundle; a bundle that cannot be decoded is counted as unreadable. */
  async evaluate(bundle: ReplayBundle, decode: (bytes: Buffer) => DecodedBundle | Promise<DecodedBundle>) {
    let decoded: DecodedBundle
    try {
      decoded = await decode(bundle.bytes)
    } catch {
      this.tally.unreadable++
      return
    }
    let catalogueScan = 0
    let candidateScan = 0
    const evidence = replayEvidence(decoded, (excerpt) => {
      let began = this.clock()
      const found = new Map(this.baseline.scanExcerpt(excerpt))
      catalogueScan = this.clock() - began
      began = this.clock()
      for (const [pattern, match] of this.candidateIndex?.scanExcerpt(excerpt) ?? []) found.set(pattern, match)
      candidateScan = this.clock() - began
      return found as LogMatches
    })
    let began = this.clock()
    const before = await this.baseline.diagnose(evidence, { explain: false })
    const baselineRun = this.clock() - began
    began = this.clock()
    const after = await this.withCandidates.diagnose(evidence, { explain: false })
    const candidateRun = this.clock() - began
    this.tally.cost(candidateScan + Math.max(0, candidateRun - baselineRun), catalogueScan + baselineRun)
    await this.compare(bundle, decoded, before, after, () => this.withCandidates.diagnose(evidence))
  }

  private async compare(
    bundle: ReplayBundle,
    decoded: DecodedBundle,
    before: Diagnosis,
    after: Diagnosis,
    explained: () => Promise<Diagnosis>,
  ) {
    const found = after.matches.filter((f) => !isBuiltin(f.rule) && this.candidateIds.has(f.rule.id))
    const { alertname, instance } = decoded.header.facts.alert
    const event = {
      eventId: bundle.eventId,
      incidentId: bundle.incidentId,
      alertname,
      instance,
      diagnosedAt: new Date(bundle.createdAt).toISOString(),
    }
    this.tally.seen(
      decoded.header.dropped.length > 0,
      found.map((f) => f.rule.id as number),
    )
    const [was, is] = [outcomeOf(before.primary), outcomeOf(after.primary)]
    if (!sameOutcome(was, is)) {
      // Explained once, for the events that change only.
      const explanation = (await explained()).explanation
      const oldPrimary = before.primary.rule.id
      this.tally.changed({
        ...event,
        before: was,
        after: is,
        decidedBy: explanation?.rules[0] ?? null,
        outranked: explanation?.ranking.find((r) => r.rule === oldPrimary) ?? null,
      })
    } else if (found.length > 0) {
      this.tally.added({ ...event, primary: is, added: found.map(outcomeOf) })
    } else {
      this.tally.unchanged++
    }
  }

  result(): ReplayResult {
    return this.tally.result()
  }
}
