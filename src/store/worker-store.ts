import type { WorkQueue } from '../queue/work-queue.js'
import type { IncidentRecord, StoredEvent, WorkerStore } from '../worker/ports.js'
import type { Db } from './database.js'
import type { WriteBatcher } from './write-batcher.js'

interface IncidentRow {
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

function toIncident(row: IncidentRow): IncidentRecord {
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    startsAt: row.starts_at,
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

/**
 * The worker's storage (worker/ports.ts) on the one SQLite connection. Its commits go
 * through `batcher`: the events of one turn of the event loop share a commit.
 */
export function sqliteWorkerStore(db: Db, batcher: WriteBatcher, queue: Pick<WorkQueue, 'complete'>): WorkerStore {
  const s = {
    event: db.prepare<[string], Record<string, unknown>>(
      `SELECT id, status, starts_at, starts_ms, alertname, instance, severity, alert, received_at,
        incident_id, transition, after_event_id FROM events WHERE id = ?`,
    ),
    hasResult: db.prepare('SELECT 1 FROM results WHERE event_id = ?').pluck(),
    incident: db.prepare<[string], IncidentRow>('SELECT * FROM incidents WHERE id = ?'),
    queued: db.prepare("SELECT 1 FROM queue_items WHERE event_id = ? AND status IN ('queued', 'processing')").pluck(),
    insertResult: db.prepare(
      'INSERT OR IGNORE INTO results (event_id, incident_id, kind, result, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    headline: db.prepare(
      'UPDATE incidents SET branch = ?, rule_name = ?, category = ?, classification = ? WHERE id = ?',
    ),
    insertMail: db.prepare(`INSERT INTO outbox (event_id, kind, after_event_id, message_id, in_reply_to, subject,
      recipients, text_body, html_body, next_attempt_at, created_at) VALUES (@eventId, @kind, @afterEventId,
      @messageId, @inReplyTo, @subject, @recipients, @text, @html, @now, @now)`),
  }
  const commit = db.transaction((input: Parameters<WorkerStore['commit']>[0]): boolean => {
    const { eventId, incidentId, kind, now } = input
    if (s.insertResult.run(eventId, incidentId, kind, JSON.stringify(input.result), now).changes === 0) return false
    if (input.headline) {
      const h = input.headline
      s.headline.run(h.branch, h.ruleName, h.category, h.classification, incidentId)
    }
    if (input.mail) s.insertMail.run({ ...input.mail, recipients: JSON.stringify(input.mail.recipients), now })
    if (input.lease) queue.complete(input.lease)
    return true
  })

  return {
    event(id) {
      const row = s.event.get(id)
      if (!row) return undefined
      return {
        id: row.id as string,
        status: row.status as StoredEvent['status'],
        startsAtText: row.starts_at as string,
        startsAt: row.starts_ms as number,
        alertname: row.alertname as string,
        instance: row.instance as string,
        severity: row.severity as string,
        alert: JSON.parse(row.alert as string) as StoredEvent['alert'],
        receivedAt: row.received_at as number,
        incidentId: row.incident_id as string,
        transition: row.transition as StoredEvent['transition'],
        afterEventId: row.after_event_id as string | null,
      }
    },
    hasResult: (eventId) => s.hasResult.get(eventId) !== undefined,
    incident(id) {
      const row = s.incident.get(id)
      return row ? toIncident(row) : undefined
    },
    predecessor(eventId) {
      if (s.hasResult.get(eventId) !== undefined) return 'done'
      return s.queued.get(eventId) !== undefined ? 'waiting' : 'gone'
    },
    commit: (input) => batcher.run(() => commit(input)),
  }
}
