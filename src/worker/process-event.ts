import { collectEvidence, type EvidenceSummary } from '../evidence/collect.js'
import type { Inventory } from '../evidence/inventory.js'
import { mailOf } from '../incidents/lifecycle.js'
import { diagnosisSubject, messageId, recoverySubject } from '../report/headers.js'
import { type AlertView, diagnosisModel, formatDuration, webLink } from '../report/report-model.js'
import type { ReportTemplates } from '../report/templates.js'
import type { Analysis } from './analysis/analysis-pool.js'
import { diagnosisRecord } from './diagnosis-record.js'
import type { EventLog, LogSink } from './event-log.js'
import type { IncidentRecord, Lease, ProcessOutcome, StoredEvent, WorkerStore } from './ports.js'

export interface ProcessorDeps {
  store: WorkerStore
  inventory: Inventory
  /** Log analysis and the live engines. */
  analysis: Pick<Analysis, 'analyzeLogs' | 'diagnose'>
  templates: ReportTemplates
  mailTo: string[]
  version: string
  httpTimeoutMs: number
  /** How long a mail waits for the one it follows (a recovery for its diagnosis). */
  followWaitMs: number
  now: () => Date
  /**
   * Brings the catalogue up to the cluster's before a diagnosis (rules registered on another
   * replica whose notification this one missed); nothing to do on SQLite.
   */
  rulesFresh?: () => Promise<void>
  /** Seconds from an alert's receipt to its report committed (diagnostic_diagnosis_latency_seconds). */
  diagnosisLatency?: { observe(seconds: number): void }
  /** Reports committed by primary finding (diagnostic_diagnoses_total). */
  diagnoses?: { inc(labels: { branch: string; classification: string; confidence: string }): void }
  /** Evidence sources that gave nothing (diagnostic_evidence_source_failures_total). */
  evidenceFailures?: { inc(labels: { source: string; reason: string }): void }
}

const iso = (ms: number) => new Date(ms).toISOString()

function alertView(event: StoredEvent, incident: IncidentRecord): AlertView {
  return {
    eventId: event.id,
    incidentId: incident.id,
    alertname: event.alertname,
    instance: event.instance,
    severity: event.severity,
    status: event.status,
    startsAt: iso(event.startsAt),
    receivedAt: iso(event.receivedAt),
    fingerprint: incident.fingerprint,
    labels: event.alert.labels,
    annotations: event.alert.annotations ?? {},
    generatorURL: webLink(event.alert.generatorURL),
  }
}

/**
 * Turns one queued event into its mail (docs/design.md, "Incidents"): a firing that opened
 * an occurrence, or came after it ended, gets evidence, a diagnosis and the 7-section
 * report; a re-fire gets a fresh report marked so; a resolution gets its recovery. A mail
 * that follows another (a recovery its diagnosis) waits, bounded, until that one is
 * committed. Idempotent: an event that already has a result is left alone, so a
 * re-processed event never produces a second mail. `queued.lease` (the queue item) is
 * completed inside the transaction of the result, then `queued.completed` is called.
 * Returns what happened, for the log.
 */
export async function processEvent(
  eventId: string,
  deps: ProcessorDeps,
  queued?: { lease: Lease; completed: () => void },
  log?: EventLog,
): Promise<ProcessOutcome> {
  const { store } = deps
  const loaded = await store.load(eventId)
  if (!loaded) return 'gone' // pruned by retention while queued
  const { event, incident } = loaded
  log?.identify({ alertname: event.alertname, instance: event.instance, incidentId: event.incidentId })
  if (loaded.processed) return 'already processed'
  if (!incident) return 'gone'
  if (event.afterEventId && (await store.predecessor(event.afterEventId)) === 'waiting') {
    if (deps.now().getTime() - event.receivedAt < deps.followWaitMs) {
      return { deferMs: 200, reason: `waiting for the mail of event ${event.afterEventId}` }
    }
  }
  const commit: Commit = async (input) => {
    if (!queued) return store.commit(input)
    const committed = await store.commit({ ...input, lease: queued.lease })
    if (committed) queued.completed()
    return committed
  }
  const mail = mailOf[event.transition]
  if (mail === 'recovery') return recover(event, incident, deps, commit)
  // Only a queue item of an earlier version can name an event without a mail.
  if (mail === null) return `nothing to send (${event.transition})`
  return diagnose(event, incident, mail, deps, commit, log?.log)
}

type Commit = WorkerStore['commit']

/** What the report says of the occurrence's life, when it is more than "firing now". */
function lifecycleNote(event: StoredEvent, incident: IncidentRecord): string | null {
  const notes: string[] = []
  if (!incident.startBelieved) {
    notes.push(
      `The alert's startsAt ${event.startsAtText} was not believed: it lies ${formatDuration(event.startsAt - event.receivedAt)} ahead of its receipt, more than the clock skew this service allows (a sender's clock gone wrong?); the evidence window and durations count from its receipt at ${iso(event.receivedAt)}.`,
    )
  }
  if (event.transition === 'refired') {
    notes.push('Re-fired: this alert had been reported resolved and fires again with the same start time.')
  }
  const ended = incident.endedAt === null ? '' : ` at ${iso(incident.endedAt)}`
  if (incident.status === 'resolved') {
    notes.push(`This alert had already resolved${ended} when this report was made; the evidence was gathered after.`)
  } else if (incident.status === 'superseded') {
    notes.push(
      `A newer occurrence of this alert started${ended}, which ended this one before this report was made; the evidence was gathered after.`,
    )
  }
  return notes.length > 0 ? notes.join(' ') : null
}

async function diagnose(
  event: StoredEvent,
  incident: IncidentRecord,
  kind: 'diagnosis' | 'refire',
  deps: ProcessorDeps,
  commit: Commit,
  log?: LogSink,
): Promise<string> {
  const collected = await collectEvidence(
    {
      alertname: event.alertname,
      instance: event.instance,
      severity: event.severity,
      // An unbelieved start says nothing of when the failure was: the receipt does.
      startsAt: incident.startBelieved ? event.startsAtText : iso(incident.openedAt),
    },
    deps.inventory,
    {
      httpTimeoutMs: deps.httpTimeoutMs,
      analyzeLogs: (files, roots) => deps.analysis.analyzeLogs(files, roots),
      failures: deps.evidenceFailures,
    },
  )
  log?.info(evidenceLine(collected.summary), 'evidence gathered')
  // Read again: the occurrence may have ended while its evidence was gathered. The read
  // and the catalogue's check go to the database together (two connections on PostgreSQL).
  const [reread] = await Promise.all([deps.store.incident(incident.id), deps.rulesFresh?.()])
  const current = reread ?? incident
  const diagnosis = await deps.analysis.diagnose(collected.evidence)
  const now = deps.now()
  const model = diagnosisModel({
    alert: alertView(event, current),
    diagnosis,
    evidence: collected.summary,
    logsRead: collected.logsRead,
    lifecycle: lifecycleNote(event, current),
    version: deps.version,
    now,
  })
  const rendered = deps.templates.diagnosis(model)
  const { rule, classification, confidence } = diagnosis.primary
  const headline = { branch: rule.branch, ruleName: rule.ruleName, category: rule.category, classification }
  const { result, bundle } = await diagnosisRecord(collected, diagnosis, model, log)
  const committed = await commit({
    eventId: event.id,
    incidentId: incident.id,
    kind: 'diagnosis',
    result,
    headline: { ...headline, confidence },
    ...(bundle ? { bundle } : {}),
    mail: {
      eventId: event.id,
      kind,
      afterEventId: event.afterEventId,
      messageId: messageId(event.id),
      // A re-fire report threads under the first diagnosis.
      inReplyTo: kind === 'refire' && incident.firingEventId ? messageId(incident.firingEventId) : null,
      subject: diagnosisSubject({
        severity: event.severity,
        alertname: event.alertname,
        instance: event.instance,
        state: kind === 'refire' ? 're-fired' : current.status === 'open' ? null : 'ended',
        ...headline,
      }),
      recipients: deps.mailTo,
      ...rendered,
    },
    now: now.getTime(),
  })
  if (committed) {
    deps.diagnosisLatency?.observe(Math.max(0, deps.now().getTime() - event.receivedAt) / 1000)
    deps.diagnoses?.inc({ branch: rule.branch, classification, confidence: diagnosis.primary.confidence ?? 'none' })
  }
  return committed ? `diagnosed ${rule.branch} (${event.transition})` : 'already processed'
}

/** Which sources answered, for the evidence line: what an operator checks when a report says "unavailable". */
function evidenceLine(summary: EvidenceSummary) {
  const failed = (source: { error?: string } | null) => (source?.error ? { error: source.error } : {})
  return {
    instanceKnown: summary.instanceKnown,
    logs: summary.logs.map((file) => ({ file: file.file, lines: file.lines, ...failed(file) })),
    metrics: summary.metrics ? { status: summary.metrics.status, ...failed(summary.metrics) } : null,
    probe: summary.probe ? { outcome: summary.probe.outcome, ...failed(summary.probe) } : null,
    spool: summary.spool ? { records: summary.spool.records.length, ...failed(summary.spool) } : null,
  }
}

/** `incident` is read after the wait above: it carries the headline of the diagnosis it followed. */
async function recover(
  event: StoredEvent,
  incident: IncidentRecord,
  deps: ProcessorDeps,
  commit: Commit,
): Promise<string> {
  const now = deps.now()
  const endedAt = incident.endedAt ?? event.receivedAt
  const startedAt = incident.startBelieved ? incident.startsAt : incident.openedAt
  const duration = formatDuration(endedAt - startedAt)
  const rendered = deps.templates.recovery({
    generatedAt: now.toISOString(),
    version: deps.version,
    alert: alertView(event, incident),
    incident: {
      id: incident.id,
      openedAt: iso(startedAt),
      resolvedAt: iso(endedAt),
      duration,
      notifiedAfter: formatDuration(event.receivedAt - endedAt),
      firingEventId: incident.firingEventId ?? '',
    },
    headline: incident.headline,
  })
  const headline = incident.headline ?? {
    branch: 'pending',
    ruleName: 'diagnosis',
    category: 'general',
    classification: 'undetermined',
  }
  await commit({
    eventId: event.id,
    incidentId: incident.id,
    kind: 'recovery',
    result: { incidentId: incident.id, resolvedAt: iso(endedAt), duration },
    mail: {
      eventId: event.id,
      kind: 'recovery',
      afterEventId: event.afterEventId,
      messageId: messageId(event.id),
      // Threads the recovery under the diagnosis in mail clients.
      inReplyTo: incident.firingEventId ? messageId(incident.firingEventId) : null,
      subject: recoverySubject({
        alertname: event.alertname,
        instance: event.instance,
        branch: headline.branch,
        ruleName: headline.ruleName,
        duration,
      }),
      recipients: deps.mailTo,
      ...rendered,
    },
    now: now.getTime(),
  })
  return `resolved incident ${incident.id} after ${duration}`
}
