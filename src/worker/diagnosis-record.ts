import type { CollectedEvidence } from '../evidence/collect.js'
import type { diagnosisModel } from '../report/report-model.js'
import { encodeBundle } from '../rules/bundle/bundle-bounds.js'
import type { EncodedBundle } from '../rules/bundle/evidence-bundle.js'
import type { Diagnosis } from '../rules/diagnosis-engine.js'
import type { LogSink } from './event-log.js'

/**
 * What a diagnosis stores: the result (its findings, the evidence summary, the catalogue, the
 * explanation of why this branch, each evidence source's timing) and the evidence bundle, the
 * engine's inputs with the redacted excerpt (docs/design.md, "Stored evidence"). A bundle that
 * cannot be made costs the event its replay, never its report.
 */
export async function diagnosisRecord(
  collected: CollectedEvidence,
  diagnosis: Diagnosis,
  model: ReturnType<typeof diagnosisModel>,
  log?: LogSink,
): Promise<{ result: Record<string, unknown>; bundle: EncodedBundle | undefined }> {
  const result = {
    primary: model.primary,
    matches: [model.primary, ...model.others],
    evidence: collected.summary,
    excerpts: model.logs.excerpts,
    catalogue: diagnosis.catalogue,
    trace: diagnosis.trace,
    lifecycle: model.lifecycle,
    explanation: diagnosis.explanation,
    evidenceTimings: collected.timings,
  }
  const { bounds: _, ...values } = collected.summary
  const bundle = await encodeBundle({ evidence: collected.evidence, excerpt: collected.excerpt, values }).catch(
    (error: unknown) => {
      log?.warn({ err: error }, 'the evidence bundle could not be made; the diagnosis is stored without it')
      return undefined
    },
  )
  return { result, bundle }
}
