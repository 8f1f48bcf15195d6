import type { EvidenceFacts } from '../rules/types.js'
import { emptyFacts, withLogExcerpt } from './facts.js'
import type { Inventory } from './inventory.js'
import { collectLogs, type LogFileSummary } from './log-collector.js'
import { logBounds } from './log-tail.js'
import { collectMetrics, type MetricsEvidence } from './metrics-collector.js'
import { type ProbeEvidence, probeHealth } from './probe.js'
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
  spool: (Omit<SpoolEvidence, 'records'> & { records: SpoolEvidence['records'] }) | null
  metrics: MetricsEvidence | null
  probe: ProbeEvidence | null
  bounds: typeof logBounds & { httpTimeoutMs: number }
}

export interface CollectedEvidence {
  facts: EvidenceFacts
  summary: EvidenceSummary
}

const crashCodes = new Set([134, 139])
const expectedCodes = new Set([0, 134, 137, 139, 143])

/**
 * Gathers the evidence of one alert from the sources the inventory names for its
 * instance (D14..D17). The payload only selects an inventory entry by exact key; labels
 * never become paths, URLs or commands. Metrics and the probe run concurrently, each
 * bounded by `httpTimeoutMs`.
 */
export async function collectEvidence(
  alert: AlertForEvidence,
  inventory: Inventory,
  options: { httpTimeoutMs: number },
): Promise<CollectedEvidence> {
  const identity = { alertname: alert.alertname, instance: alert.instance, severity: alert.severity }
  const bounds = { ...logBounds, httpTimeoutMs: options.httpTimeoutMs }
  const sources = inventory.sources(alert.instance)
  if (!sources) {
    return {
      facts: emptyFacts(identity),
      summary: { instanceKnown: false, logs: [], spool: null, metrics: null, probe: null, bounds },
    }
  }
  const [metrics, probe] = await Promise.all([
    sources.metricsUrl ? collectMetrics(sources.metricsUrl, options.httpTimeoutMs) : null,
    sources.healthUrl ? probeHealth(sources.healthUrl, options.httpTimeoutMs) : null,
  ])
  const logs = collectLogs(sources.logs, inventory.roots)
  const spool = sources.spoolDir
    ? collectSpool(sources.spoolDir, inventory.roots, {
        ...(sources.container ? { container: sources.container } : {}),
        instance: alert.instance,
        startsAt: alert.startsAt,
      })
    : null

  const exitCodes = (spool?.records ?? []).flatMap((r) => (typeof r.exitCode === 'number' ? [r.exitCode] : []))
  let facts = withLogExcerpt(emptyFacts(identity), logs.text)
  facts = {
    ...facts,
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
    probe: probe ? { outcome: probe.outcome, statusCode: probe.statusCode, latencyMs: probe.latencyMs } : facts.probe,
  }
  return { facts, summary: { instanceKnown: true, logs: logs.files, spool, metrics, probe, bounds } }
}
