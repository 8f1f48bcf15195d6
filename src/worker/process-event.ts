import { collectEvidence } from '../evidence/collect.js'
import type { Inventory } from '../evidence/inventory.js'
import { diagnosisSubject, messageId, recoverySubject } from '../report/headers.js'
import { type AlertView, diagnosisModel, formatDuration, webLink } from '../report/report-model.js'
import type { ReportTemplates } from '../report/templates.js'
import type { Catalogue } from '../rules/catalogue.js'
import type { LogAnalyzer } from './analysis-pool.js'
import type { StoredEvent, WorkerStore } from './ports.js'

export interface ProcessorDeps {
  store: WorkerStore
  inventory: Inventory
  /** The live catalogue; each event is diagnosed on the version it started with. */
  rules: { readonly catalogue: Catalogue }
  analyzer: LogAnalyzer
  templates: ReportTemplates
  mailTo: string[]
  version: string
  httpTimeoutMs: number
  now: () => Date
}

function alertView(event: StoredEvent, incidentId: string | null): AlertView {
  return {
    eventId: event.id,
    incidentId,
    alertname: event.alertname,
    instance: event.instance,
    severity: event.severity,
    status: event.status,
    startsAt: event.startsAt,
    receivedAt: new Date(event.receivedAt).toISOString(),
    fingerprint: event.identity,
    labels: event.alert.labels,
    annotations: event.alert.annotations ?? {},
    generatorURL: webLink(event.alert.generatorURL),
  }
}

/**
 * Turns one queued event into its outcome: a firing event gets evidence, a diagnosis and
 * the 7-section report (D14..D23); a resolved one closes its incident with a recovery
 * e-mail, or is recorded as uncorrelated (D13). Idempotent: an event that already has a
 * result is left alone, so a re-processed event never produces a second report.
 * `complete` (the queue item done) runs inside the transaction of the result.
 * Returns what happened, for the log.
 */
export async function processEvent(eventId: string, deps: ProcessorDeps, complete?: () => void): Promise<string> {
  const { store } = deps
  const event = store.event(eventId)
  if (!event) return 'gone' // pruned by retention while queued
  if (store.hasResult(eventId)) return 'already processed'
  const commit: Commit = (input) => store.commit(complete ? { ...input, complete } : input)
  return event.status === 'firing' ? diagnose(event, deps, commit) : recover(event, deps, commit)
}

type Commit = WorkerStore['commit']

async function diagnose(event: StoredEvent, deps: ProcessorDeps, commit: Commit): Promise<string> {
  const incident = await deps.store.openIncident(event, deps.now().getTime())
  const { catalogue } = deps.rules
  const evidence = await collectEvidence(
    { alertname: event.alertname, instance: event.instance, severity: event.severity, startsAt: event.startsAt },
    deps.inventory,
    {
      httpTimeoutMs: deps.httpTimeoutMs,
      analyzeLogs: (files, roots) => deps.analyzer.analyze(files, roots, catalogue),
    },
  )
  const diagnosis = await catalogue.evaluate(evidence.facts, evidence.logMatches)
  const now = deps.now()
  const model = diagnosisModel({
    alert: alertView(event, incident.id),
    diagnosis,
    evidence: evidence.summary,
    logsRead: evidence.logsRead,
    version: deps.version,
    now,
  })
  const rendered = deps.templates.diagnosis(model)
  const { rule } = diagnosis.primary
  const headline = {
    branch: rule.branch,
    ruleName: rule.ruleName,
    category: rule.category,
    classification: rule.classification,
  }
  const result = {
    primary: model.primary,
    matches: [model.primary, ...model.others],
    evidence: evidence.summary,
    excerpts: model.logs.excerpts,
    catalogue: diagnosis.catalogue,
    trace: diagnosis.trace,
  }
  const committed = await commit({
    eventId: event.id,
    incidentId: incident.id,
    kind: 'diagnosis',
    result,
    headline,
    mail: {
      eventId: event.id,
      kind: 'diagnosis',
      messageId: messageId(event.id),
      inReplyTo: null,
      subject: diagnosisSubject({
        severity: event.severity,
        alertname: event.alertname,
        instance: event.instance,
        ...headline,
      }),
      recipients: deps.mailTo,
      ...rendered,
    },
    now: now.getTime(),
  })
  return committed ? `diagnosed ${rule.branch}` : 'already processed'
}

async function recover(event: StoredEvent, deps: ProcessorDeps, commit: Commit): Promise<string> {
  const incident = await deps.store.correlate(event.identity, event.startsAt)
  const now = deps.now()
  if (!incident) {
    await commit({
      eventId: event.id,
      incidentId: null,
      kind: 'uncorrelated',
      result: { correlated: false },
      now: now.getTime(),
    })
    return 'resolved without an open incident: recorded, no e-mail'
  }
  const resolvedAt = now.getTime()
  const duration = formatDuration(resolvedAt - Date.parse(incident.startsAt))
  const rendered = deps.templates.recovery({
    generatedAt: now.toISOString(),
    version: deps.version,
    alert: alertView(event, incident.id),
    incident: {
      id: incident.id,
      openedAt: incident.startsAt,
      resolvedAt: now.toISOString(),
      duration,
      firingEventId: incident.firingEventId,
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
    result: { correlated: true, incidentId: incident.id, duration },
    mail: {
      eventId: event.id,
      kind: 'recovery',
      messageId: messageId(event.id),
      // Threads the recovery under the diagnosis in mail clients.
      inReplyTo: messageId(incident.firingEventId),
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
    now: resolvedAt,
  })
  return `resolved incident ${incident.id} after ${duration}`
}
