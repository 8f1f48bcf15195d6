import type { OutboxRow } from '../mail/outbox-sender.js'
import type { OutgoingMail } from '../mail/outgoing-mail.js'
import type { Headline, IncidentRecord, StoredEvent } from '../worker/ports.js'

// The worker's rows as both storage adapters read and write them (docs/design.md, "Storage").

export interface IncidentRow {
  id: string
  fingerprint: string
  starts_at: number
  status: IncidentRecord['status']
  ended_at: number | null
  firing_event_id: string | null
  branch: string | null
  rule_name: string | null
  category: string | null
  classification: string | null
  opened_at: number
  start_believed: number
}

export function toIncident(row: IncidentRow): IncidentRecord {
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    startsAt: Number(row.starts_at),
    status: row.status,
    endedAt: row.ended_at,
    firingEventId: row.firing_event_id,
    openedAt: row.opened_at,
    startBelieved: row.start_believed === 1,
    headline:
      row.branch && row.rule_name && row.category && row.classification
        ? { branch: row.branch, ruleName: row.rule_name, category: row.category, classification: row.classification }
        : null,
  }
}

/** Followed by the event id's placeholder. */
export const storedEventQuery = `SELECT id, status, starts_at, starts_ms, alertname, instance, severity, alert,
  received_at, incident_id, transition, after_event_id FROM events WHERE id =`

export function toStoredEvent(row: Record<string, unknown>): StoredEvent {
  return {
    id: row.id as string,
    status: row.status as StoredEvent['status'],
    startsAtText: row.starts_at as string,
    startsAt: Number(row.starts_ms),
    alertname: row.alertname as string,
    instance: row.instance as string,
    severity: row.severity as string,
    alert: JSON.parse(row.alert as string) as StoredEvent['alert'],
    receivedAt: Number(row.received_at),
    incidentId: row.incident_id as string,
    transition: row.transition as StoredEvent['transition'],
    afterEventId: row.after_event_id as string | null,
  }
}

/** Numbered parameters, `$n` (src/queue/queue-sql.ts): the values of `headlineValues`. */
export const headlineSql =
  'UPDATE incidents SET branch = $1, rule_name = $2, category = $3, classification = $4, confidence = $5 WHERE id = $6'

export const headlineValues = (h: Headline, incidentId: string): unknown[] => [
  h.branch,
  h.ruleName,
  h.category,
  h.classification,
  h.confidence ?? null,
  incidentId,
]

/** Numbered parameters, `$n` (src/queue/queue-sql.ts): the values of `mailValues`. */
export const insertMailSql = `INSERT INTO outbox (event_id, kind, after_event_id, message_id, in_reply_to, subject,
  recipients, text_body, html_body, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`

export function mailValues(mail: OutgoingMail, now: number): unknown[] {
  return [
    mail.eventId,
    mail.kind,
    mail.afterEventId,
    mail.messageId,
    mail.inReplyTo,
    mail.subject,
    JSON.stringify(mail.recipients),
    mail.text,
    mail.html,
    now,
  ]
}

/** An outbox row as the sender takes it; `claim` where replicas share the outbox. */
export function toOutboxRow(row: Record<string, unknown>, claim?: string): OutboxRow {
  return {
    id: Number(row.id),
    attempts: Number(row.attempts),
    ...(claim === undefined ? {} : { claim }),
    eventId: row.event_id as string,
    kind: row.kind as OutboxRow['kind'],
    afterEventId: row.after_event_id as string | null,
    messageId: row.message_id as string,
    inReplyTo: row.in_reply_to as string | null,
    subject: row.subject as string,
    recipients: JSON.parse(row.recipients as string) as string[],
    text: row.text_body as string,
    html: row.html_body as string,
    ...(typeof row.alertname === 'string' ? { alertname: row.alertname, instance: row.instance as string } : {}),
  }
}

/** The alert an outbox row's mail is about, for the sender's log lines (a column of each due row). */
export const mailAlertColumns = (outbox: string) =>
  `(SELECT alertname FROM events e WHERE e.id = ${outbox}.event_id) AS alertname,
   (SELECT instance FROM events e WHERE e.id = ${outbox}.event_id) AS instance`
