import type { EvidenceSummary } from '../evidence/collect.js'
import type { GcSummary } from '../evidence/gc-log.js'
import type { Diagnosis } from '../rules/diagnosis-engine.js'
import type { Finding } from '../rules/findings.js'
import { type FindingView, findingView } from './finding-view.js'
import { lineLocator } from './log-locations.js'
import { metricsFacts, usedOf } from './runtime-words.js'

// The view models the templates render (D23). Everything here is plain data: templates
// decide the layout, Handlebars escapes every value in HTML.

export interface AlertView {
  eventId: string
  incidentId: string | null
  alertname: string
  instance: string
  severity: string
  status: string
  startsAt: string
  receivedAt: string
  fingerprint: string
  labels: Record<string, string>
  annotations: Record<string, string>
  /** The alert's source, only when it is an http(s) URL (webLink). */
  generatorURL: string | null
}

/**
 * A link a report may show: only an http(s) URL. Anything else (javascript:, data:, ...)
 * would be a live link in the HTML mail; it is dropped, the text mail drops it too.
 */
export function webLink(url: string | undefined): string | null {
  if (!url) return null
  try {
    const { protocol } = new URL(url)
    return protocol === 'http:' || protocol === 'https:' ? url : null
  } catch {
    return null
  }
}

interface ExcerptLine {
  /** The line's number in its file (log-locations.ts). */
  number: string
  text: string
  match: boolean
}

/** A container event as section 5 lists it: the fields an SRE reads, as text. */
interface ContainerEventView {
  timestamp: string
  container: string | null
  event: string | null
  exitCode: string | null
  oomKilled: boolean
  health: string | null
  reason: string | null
}

interface GcView extends GcSummary {
  /** "1,975 MiB of 2,048 MiB (96 %)" after the last collection that logged the heap. */
  heapAfter: string | null
}

export interface DiagnosisModel {
  generatedAt: string
  version: string
  alert: AlertView
  /** Re-fired, or already ended when the report was made (docs/design.md, "Incidents"). */
  lifecycle: string | null
  labels: Array<{ name: string; value: string }>
  annotations: Array<{ name: string; value: string }>
  primary: FindingView
  others: FindingView[]
  actions: string[]
  logs: {
    files: EvidenceSummary['logs']
    /** Each matched line with its context, all from the matched line's file. */
    excerpts: Array<{ branch: string; file: string; lines: ExcerptLine[] }>
    empty: boolean
  }
  /** The GC events of the log excerpt (evidence/gc-log.ts); null when no log was read. */
  gc: GcView | null
  runtime: {
    instanceKnown: boolean
    container: {
      records: ContainerEventView[]
      invalidLines: number
      skipped: Array<{ file: string; reason: string }>
      error: string | null
    } | null
    metrics: EvidenceSummary['metrics']
    /** The metrics in words: heap used of its maximum, threads, GC time over a window (runtime-words.ts). */
    metricsFacts: string[]
    probe: EvidenceSummary['probe']
  }
  provenance: {
    builtinVersions: string
    customRules: number
    lastCustomRuleId: number | null
    rulesEvaluated: number
    /** The live engine that decided: its instance id and how many rules it held. */
    engine: string
    rulesMatched: string
    bounds: EvidenceSummary['bounds']
  }
}

/**
 * Each matched log line with the lines either side that the match carries, numbered as in
 * its file; context lines from the neighbouring file of the excerpt are left out.
 */
function excerpts(findings: readonly Finding[], files: EvidenceSummary['logs']): DiagnosisModel['logs']['excerpts'] {
  const locate = lineLocator(files)
  return findings.flatMap((finding) => {
    const match = finding.logMatch
    if (!match) return []
    const at = locate(match.line)
    const lines = match.context.flatMap((line): ExcerptLine[] => {
      const where = locate(line.number)
      if (at && where?.file !== at.file) return []
      return [{ number: where?.label ?? String(line.number), text: line.text, match: line.number === match.line }]
    })
    return [{ branch: finding.rule.branch, file: at?.file ?? 'the log excerpt', lines }]
  })
}

const text = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 200) : null

function containerEventView(record: Record<string, unknown>): ContainerEventView {
  return {
    timestamp: text(record.timestamp) ?? '',
    container: text(record.container),
    event: text(record.event),
    exitCode: text(record.exitCode),
    oomKilled: record.oomKilled === true,
    health: text(record.health),
    reason: text(record.reason),
  }
}

/** The GC part of the report; exported for its test. A logged capacity of 0 has no share. */
export function gcView(gc: GcSummary): GcView {
  const after = gc.heapAfterLast
  if (!after) return { ...gc, heapAfter: null }
  return { ...gc, heapAfter: usedOf(after.usedKiB * 1024, after.capacityKiB * 1024) }
}

const entries = (record: Record<string, string>) =>
  Object.keys(record)
    .sort()
    .map((name) => ({ name, value: record[name] as string }))

export function diagnosisModel(input: {
  alert: AlertView
  diagnosis: Diagnosis
  evidence: EvidenceSummary
  /** Whether any log text was read (section 4 says so when none was). */
  logsRead: boolean
  lifecycle: string | null
  version: string
  now: Date
}): DiagnosisModel {
  const { alert, diagnosis, evidence } = input
  const versions = diagnosis.catalogue.builtinVersions
  return {
    generatedAt: input.now.toISOString(),
    version: input.version,
    alert,
    lifecycle: input.lifecycle,
    labels: entries(alert.labels),
    annotations: entries(alert.annotations),
    primary: findingView(diagnosis.primary, evidence.probe),
    others: diagnosis.matches.slice(1).map((finding) => findingView(finding, evidence.probe)),
    actions: diagnosis.primary.rule.recommendedActions,
    logs: {
      files: evidence.logs,
      excerpts: excerpts(diagnosis.matches, evidence.logs),
      empty: !input.logsRead,
    },
    gc: input.logsRead && evidence.gc ? gcView(evidence.gc) : null,
    runtime: {
      instanceKnown: evidence.instanceKnown,
      container: evidence.spool
        ? {
            records: evidence.spool.records.slice(-20).map(containerEventView),
            invalidLines: evidence.spool.invalidLines,
            skipped: evidence.spool.skipped,
            error: evidence.spool.error ?? null,
          }
        : null,
      metrics: evidence.metrics,
      metricsFacts: evidence.metrics ? metricsFacts(evidence.metrics) : [],
      probe: evidence.probe,
    },
    provenance: {
      builtinVersions: Object.entries(versions)
        .map(([family, v]) => `${family} ${v}`)
        .join(', '),
      customRules: diagnosis.catalogue.customRules,
      lastCustomRuleId: diagnosis.catalogue.lastCustomRuleId,
      rulesEvaluated: diagnosis.trace.length,
      engine: `${diagnosis.catalogue.engine.instance} (${diagnosis.catalogue.engine.rules} rules)`,
      rulesMatched: diagnosis.matches.map((m) => m.rule.branch).join(', '),
      bounds: evidence.bounds,
    },
  }
}

export interface RecoveryModel {
  generatedAt: string
  version: string
  alert: AlertView
  incident: {
    id: string
    /** When the alert started, resolved (its endsAt) and how long between. */
    openedAt: string
    resolvedAt: string
    duration: string
    /** How long after the end the resolution reached the service. */
    notifiedAfter: string
    firingEventId: string
  }
  headline: { branch: string; ruleName: string; category: string; classification: string } | null
}

/** "3d 4h", "1h 23m", "45m 10s", "12s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  const d = Math.floor(s / 86_400)
  const h = Math.floor((s % 86_400) / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  if (d > 0) return `${d}d ${h}h`
  if (h > 0) return `${h}h ${m}m`
  if (m > 0) return `${m}m ${sec}s`
  return `${sec}s`
}
