import type { LogFileSummary } from './log-collector.js'
import type { MetricsEvidence } from './metrics-collector.js'
import type { ProbeEvidence } from './probe.js'
import type { SpoolEvidence } from './spool-collector.js'

export type EvidenceSource = 'inventory' | 'log' | 'spool' | 'metrics' | 'probe'

export interface SourceFailure {
  source: EvidenceSource
  /** One of a few words, for a metric label: the evidence summary keeps the full reason. */
  reason: string
}

/**
 * A file or folder's reason (allowed-path.ts, regular-file.ts, log-analysis.ts) as one word.
 * Null for a file left unread only because the evidence bounds were already reached.
 */
function fileReason(error: string): string | null {
  if (error.includes('bounds were reached')) return null
  if (error.includes('outside the allowed roots')) return 'outside_roots'
  if (error === 'missing') return 'missing'
  if (error.startsWith('not a regular file')) return 'not_regular_file'
  if (error.startsWith('unreadable') || error.includes('symlink appeared')) return 'unreadable'
  if (error.startsWith('not read: the log analysis')) return 'timeout'
  return 'error'
}

/** "timeout: ...", "HTTP 503", "no JVM metrics ..." (metrics-collector.ts) as one word. */
function metricsReason(error: string): string {
  const failure = /^(timeout|refused|too_large|error):/.exec(error)?.[1]
  if (failure) return failure
  if (error.startsWith('HTTP ')) return 'http_status'
  return error.startsWith('no JVM metrics') ? 'no_jvm_metrics' : 'error'
}

/**
 * The sources that gave nothing for one event, for
 * diagnostic_evidence_source_failures_total: each log file or spool file not read, a spool
 * folder, metrics endpoint or health probe that failed. A probe answered with an error
 * status is evidence (the application is unhealthy), not a failure of the source.
 */
export function sourceFailures(summary: {
  instanceKnown: boolean
  logs: readonly LogFileSummary[]
  spool: Pick<SpoolEvidence, 'error' | 'skipped'> | null
  metrics: MetricsEvidence | null
  probe: ProbeEvidence | null
}): SourceFailure[] {
  if (!summary.instanceKnown) return [{ source: 'inventory', reason: 'unknown_instance' }]
  const failures: SourceFailure[] = []
  const file = (source: EvidenceSource, error: string | undefined) => {
    const reason = error === undefined ? null : fileReason(error)
    if (reason !== null) failures.push({ source, reason })
  }
  for (const log of summary.logs) file('log', log.error)
  file('spool', summary.spool?.error)
  for (const skipped of summary.spool?.skipped ?? []) file('spool', skipped.reason)
  if (summary.metrics?.status === 'unavailable') {
    failures.push({ source: 'metrics', reason: metricsReason(summary.metrics.error ?? '') })
  }
  const outcome = summary.probe?.outcome
  if (outcome === 'timeout' || outcome === 'refused' || outcome === 'error')
    failures.push({ source: 'probe', reason: outcome })
  return failures
}
