import type { DeliveryOutcome, OutboxRow, OutboxStore } from '../report/outbox-sender.js'
import type { IncidentRecord, StoredEvent, WorkerStore } from '../worker/ports.js'
import type { Db } from './database.js'
import { uuidv7 } from './ids.js'
import type { WriteBatcher } from './write-batcher.js'

interface IncidentRow {
  id: string
  identity: string
  starts_at: string
  status: 'open' | 'resolved'
  firing_event_id: string
  opened_at: number
  branch: string | null
  rule_name: string | null
  category: string | null
  classification: string | null
}

function toIncident(row: IncidentRow): IncidentRecord {
  return {
    id: row.id,
    identity: row.identity,
    startsAt: row.starts_at,
    status: row.status,
    firingEventId: row.firing_event_id,
    openedAt: row.opened_at,
    headline:
      row.branch && row.rule_name && row.category && row.classification
        ? { branch: row.branch, ruleName: row.rule_name, category: row.category, classification: row.classification }
        : null,
  }
}

/**
 * The worker's storage (worker/ports.ts) on the one SQLite connection. Its writes, and
 * the incident look-up of a resolution, go through `batcher`: the events of one turn of
 * the event loop share a commit, and a resolution sees the incident of a firing event
 * that was claimed before it.
 */
export function sqliteWorkerStore(db: Db, batcher: WriteBatcher): WorkerStore {
  const s = {
    event: db.prepare<[string], Record<string, unknown>>(
      'SELECT id, identity, fingerprint, status, starts_at, alertname, instance, severity, alert, received_at FROM events WHERE id = ?',
    ),
    hasResult: db.prepare('SELECT 1 FROM results WHERE event_id = ?').pluck(),
    insertIncident: db.prepare(`INSERT OR IGNORE INTO incidents (id, identity, starts_at, alertname, instance, severity,
      status, firing_event_id, opened_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)`),
    incidentByKey: db.prepare<[string, string], IncidentRow>(
      'SELECT * FROM incidents WHERE identity = ? AND starts_at = ?',
    ),
    openIncidents: db.prepare<[string, string], IncidentRow>(
      "SELECT * FROM incidents WHERE identity = ? AND status = 'open' ORDER BY starts_at = ? DESC, opened_at DESC LIMIT 1",
    ),
    insertResult: db.prepare(
      'INSERT OR IGNORE INTO results (event_id, incident_id, kind, result, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    headline: db.prepare(
      'UPDATE incidents SET branch = ?, rule_name = ?, category = ?, classification = ? WHERE id = ?',
    ),
    resolve: db.prepare(
      "UPDATE incidents SET status = 'resolved', resolved_event_id = ?, resolved_at = ? WHERE id = ? AND status = 'open'",
    ),
    insertMail: db.prepare(`INSERT INTO outbox (event_id, kind, message_id, in_reply_to, subject, recipients, text_body,
      html_body, next_attempt_at, created_at) VALUES (@eventId, @kind, @messageId, @inReplyTo, @subject, @recipients,
      @text, @html, @now, @now)`),
  }
  const commit = db.transaction((input: Parameters<WorkerStore['commit']>[0]): boolean => {
    const { eventId, incidentId, kind, now } = input
    if (s.insertResult.run(eventId, incidentId, kind, JSON.stringify(input.result), now).changes === 0) return false
    if (kind === 'diagnosis' && incidentId && input.headline) {
      const h = input.headline
      s.headline.run(h.branch, h.ruleName, h.category, h.classification, incidentId)
    }
    if (kind === 'recovery' && incidentId) s.resolve.run(eventId, now, incidentId)
    if (input.mail) s.insertMail.run({ ...input.mail, recipients: JSON.stringify(input.mail.recipients), now })
    input.complete?.()
    return true
  })

  return {
    event(id) {
      const row = s.event.get(id)
      if (!row) return undefined
      return {
        id: row.id as string,
        identity: row.identity as string,
        fingerprint: row.fingerprint as string | null,
        status: row.status as StoredEvent['status'],
        startsAt: row.starts_at as string,
        alertname: row.alertname as string,
        instance: row.instance as string,
        severity: row.severity as string,
        alert: JSON.parse(row.alert as string) as StoredEvent['alert'],
        receivedAt: row.received_at as number,
      }
    },
    hasResult: (eventId) => s.hasResult.get(eventId) !== undefined,
    openIncident: (event, now) =>
      batcher.run(() => {
        s.insertIncident.run(
          uuidv7(now),
          event.identity,
          event.startsAt,
          event.alertname,
          event.instance,
          event.severity,
          event.id,
          now,
        )
        return toIncident(s.incidentByKey.get(event.identity, event.startsAt) as IncidentRow)
      }),
    correlate: (identity, startsAt) =>
      batcher.run(() => {
        const row = s.openIncidents.get(identity, startsAt)
        return row ? toIncident(row) : undefined
      }),
    commit: (input) => batcher.run(() => commit(input)),
  }
}

/** The durable outbox (D24) for the sender. */
export function sqliteOutboxStore(db: Db): OutboxStore {
  const s = {
    due: db.prepare<[number, number], Record<string, unknown>>(
      "SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
    ),
    sent: db.prepare("UPDATE outbox SET status = 'sent', attempts = ?, sent_at = ?, last_error = NULL WHERE id = ?"),
    retry: db.prepare('UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?'),
    failed: db.prepare("UPDATE outbox SET status = 'failed', attempts = ?, last_error = ? WHERE id = ?"),
  }
  const record = db.transaction((outcomes: readonly DeliveryOutcome[]) => {
    for (const o of outcomes) {
      if (o.state === 'sent') s.sent.run(o.attempts, o.at, o.id)
      else if (o.state === 'retry') s.retry.run(o.attempts, o.nextAttemptAt, o.error, o.id)
      else s.failed.run(o.attempts, o.error, o.id)
    }
  })
  return {
    due: (now, limit) =>
      s.due.all(now, limit).map(
        (row): OutboxRow => ({
          id: row.id as number,
          attempts: row.attempts as number,
          eventId: row.event_id as string,
          kind: row.kind as OutboxRow['kind'],
          messageId: row.message_id as string,
          inReplyTo: row.in_reply_to as string | null,
          subject: row.subject as string,
          recipients: JSON.parse(row.recipients as string) as string[],
          text: row.text_body as string,
          html: row.html_body as string,
        }),
      ),
    record: (outcomes) => record.immediate(outcomes),
  }
}
