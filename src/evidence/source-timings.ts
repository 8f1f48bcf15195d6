import type { LogAnalysis } from './log-analysis.js'
import type { MetricsEvidence } from './metrics-collector.js'
import type { ProbeEvidence } from './probe.js'
import type { SpoolEvidence } from './spool-collector.js'

// How long each evidence source of an event took and what it gave: the incident's timeline
// shows them (docs/api.md, "Timeline"), kept with the diagnosis.

export interface EvidenceTiming {
  source: 'logs' | 'metrics' | 'probe' | 'spool'
  /** When gathering began (epoch ms). */
  startedAt: number
  /** Wall-clock milliseconds until it gave its answer (for logs, waiting for an analysis thread included). */
  durationMs: number
  /**
   * `ok`; `partial` (logs: some files not read); `failed` (nothing usable); for the probe,
   * its outcome (`ok`, `http_error`, `timeout`, `refused`, `error`).
   */
  outcome: string
  /** Why a source failed or was partial, cut to 200 characters. */
  detail?: string
}

type Outcome = Pick<EvidenceTiming, 'outcome' | 'detail'>

const detail = (text: string | undefined): Pick<EvidenceTiming, 'detail'> =>
  text ? { detail: text.length > 200 ? `${text.slice(0, 200)}…` : text } : {}

export function logsOutcome(logs: LogAnalysis): Outcome {
  const failed = logs.files.filter((file) => file.error)
  if (failed.length === 0) return { outcome: logs.read ? 'ok' : 'failed' }
  return { outcome: logs.read ? 'partial' : 'failed', ...detail(failed[0]?.error) }
}

export const metricsOutcome = (metrics: MetricsEvidence): Outcome =>
  metrics.status === 'ok' ? { outcome: 'ok' } : { outcome: 'failed', ...detail(metrics.error) }

export const probeOutcome = (probe: ProbeEvidence): Outcome => ({ outcome: probe.outcome, ...detail(probe.error) })

export const spoolOutcome = (spool: SpoolEvidence): Outcome =>
  spool.error ? { outcome: 'failed', ...detail(spool.error) } : { outcome: 'ok' }

/** Runs a source's gathering and records its timing and outcome in `timings` once it has answered. */
export function sourceTimer(timings: EvidenceTiming[]) {
  return async <T>(source: EvidenceTiming['source'], gather: () => Promise<T>, outcome: (value: T) => Outcome) => {
    const startedAt = Date.now()
    const began = performance.now()
    const value = await gather()
    timings.push({ source, startedAt, durationMs: Math.round(performance.now() - began), ...outcome(value) })
    return value
  }
}
