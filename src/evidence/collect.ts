import type { Evidence } from '../rules/types.js'
import { emptyEvidence } from './empty-evidence.js'
import type { GcSummary } from './gc-log.js'
import type { Inventory } from './inventory.js'
import { AnalysisTimeoutError, type LogAnalysis, timedOutAnalysis } from './log-analysis.js'
import type { LogFileSummary } from './log-collector.js'
import { logBounds } from './log-tail.js'
import { collectMetrics, type MetricsEvidence } from './metrics-collector.js'
import { type ProbeEvidence, probeHealth } from './probe.js'
import { type SourceFailure, sourceFailures } from './source-failures.js'
import {
  type EvidenceTiming,
  logsOutcome,
  metricsOutcome,
  probeOutcome,
  sourceTimer,
  spoolOutcome,
} from './source-timings.js'
import { collectSpool, type SpoolEvidence } from './spool-collector.js'

export interface AlertForEvidence {
  alertname: string
  instance: string
  severity: string
  startsAt: string
}

/** What was collected, for the stored result and the report (sections 4, 5 and 7). */
export interface EvidenceSummary {
  instanceKnown: boolean
  logs: LogFileSummary[]
  /** The GC events of the log excerpt; absent in results stored before it was kept. */
  gc?: GcSummary
  spool: (Omit<SpoolEvidence, 'records'> & { records: SpoolEvidence['records'] }) | null
  metrics: MetricsEvidence | null
  probe: ProbeEvidence | null
  bounds: typeof logBounds & { httpTimeoutMs: number }
}

export interface CollectedEvidence {
  /** For the engine; the log excerpt was scanned and its exceptions read while it was read (`log.matches`, `log.exceptions`). */
  evidence: Evidence
  /** Whether any log text was read. */
  logsRead: boolean
  summary: EvidenceSummary
  /** The redacted excerpt the rules scanned (the evidence bundle keeps it); null when no log was read. */
  excerpt: Buffer | null
  /** How long each configured source took and what it gave, in the order they finished (the incident's timeline). */
  timings: EvidenceTiming[]
}

const crashCodes = new Set([134, 139])
const expectedCodes = new Set([0, 134, 137, 139, 143])

/** A buffer from a thread's answer, which structured cloning turned into a Uint8Array. */
const asBuffer = (bytes: Uint8Array | null) =>
  bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * Gathers the evidence of one alert from the sources the inventory names for its
 * instance (docs/design.md, "Evidence"). The payload only selects an inventory entry by exact key; labels
 * never become paths, URLs or commands. The log analysis (on a thread), metrics and the
 * probe run concurrently, the last two each bounded by `httpTimeoutMs`.
 */
export async function collectEvidence(
  alert: AlertForEvidence,
  inventory: Inventory,
  options: {
    httpTimeoutMs: number
    /** How far apart the GC counter is read (metrics-collector.ts); by default gcRateIntervalMs. */
    metricsIntervalMs?: number
    analyzeLogs: (files: readonly string[], roots: readonly string[]) => Promise<LogAnalysis>
    /** Counts each source that gave nothing (diagnostic_evidence_source_failures_total). */
    failures?: { inc(labels: SourceFailure): void }
  },
): Promise<CollectedEvidence> {
  const counted = (collected: CollectedEvidence) => {
    for (const failure of sourceFailures(collected.summary)) options.failures?.inc(failure)
    return collected
  }
  const identity = { alertname: alert.alertname, instance: alert.instance, severity: alert.severity }
  const timings: EvidenceTiming[] = []
  const bounds = { ...logBounds, httpTimeoutMs: options.httpTimeoutMs }
  const sources = inventory.sources(alert.instance)
  if (!sources) {
    return counted({
      evidence: emptyEvidence(identity),
      logsRead: false,
      summary: { instanceKnown: false, logs: [], spool: null, metrics: null, probe: null, bounds },
      excerpt: null,
      timings,
    })
  }
  const timed = sourceTimer(timings)
  const [logs, metrics, probe] = await Promise.all([
    // An analysis past its bound is an evidence gap: the event is still diagnosed and mailed.
    timed(
      'logs',
      () =>
        options
          .analyzeLogs(sources.logs, inventory.roots)
          .catch((error: unknown) =>
            error instanceof AnalysisTimeoutError ? timedOutAnalysis(sources.logs, error) : Promise.reject(error),
          ),
      logsOutcome,
    ),
    sources.metricsUrl
      ? timed(
          'metrics',
          () => collectMetrics(sources.metricsUrl as string, options.httpTimeoutMs, options.metricsIntervalMs),
          metricsOutcome,
        )
      : null,
    sources.healthUrl
      ? timed('probe', () => probeHealth(sources.healthUrl as string, options.httpTimeoutMs), probeOutcome)
      : null,
  ])
  const spoolDir = sources.spoolDir
  const spool = spoolDir
    ? await timed(
        'spool',
        async () =>
          collectSpool(spoolDir, inventory.roots, {
            ...(sources.container ? { container: sources.container } : {}),
            instance: alert.instance,
            startsAt: alert.startsAt,
          }),
        spoolOutcome,
      )
    : null

  const exitCodes = (spool?.records ?? []).flatMap((r) => (typeof r.exitCode === 'number' ? [r.exitCode] : []))
  const empty = emptyEvidence(identity)
  const evidence: Evidence = {
    ...empty,
    log: { matches: logs.matches, exceptions: logs.exceptions },
    gc: logs.gc,
    available:
      logs.files.some((file) => !file.error) ||
      (spool !== null && !spool.error) ||
      metrics?.status === 'ok' ||
      (probe !== null && ['ok', 'http_error', 'timeout'].includes(probe.outcome)),
    container: {
      events: spool?.records.length ?? 0,
      oomKilled: (spool?.records ?? []).some((r) => r.oomKilled === true),
      crashExits: exitCodes.filter((code) => crashCodes.has(code)).length,
      errorExits: exitCodes.filter((code) => !expectedCodes.has(code)).length,
      exitCodes,
    },
    metrics: { heapUsedRatio: metrics?.heapUsedRatio ?? null, threads: metrics?.threads ?? null },
    probe: probe ? { outcome: probe.outcome, statusCode: probe.statusCode, latencyMs: probe.latencyMs } : empty.probe,
  }
  return counted({
    evidence,
    logsRead: logs.read,
    summary: { instanceKnown: true, logs: logs.files, gc: logs.gc, spool, metrics, probe, bounds },
    excerpt: asBuffer(logs.excerpt),
    timings,
  })
}
