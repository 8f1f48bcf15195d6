import type { DeliveryOutcome, OutboxStore } from '../../mail/outbox-sender.js'
import { mailAlertColumns, toOutboxRow } from '../worker-rows.js'
import type { Db } from './database.js'

/** The durable outbox for the sender (docs/design.md). */
export function sqliteOutboxStore(db: Db): OutboxStore {
  const s = {
    // A mail waits while the one it follows is pending (sent or failed for good, it goes).
    due: db.prepare<[number, number], Record<string, unknown>>(
      `SELECT *, ${mailAlertColumns('o')} FROM outbox o WHERE status = 'pending' AND next_attempt_at <= ? AND NOT EXISTS
        (SELECT 1 FROM outbox p WHERE p.event_id = o.after_event_id AND p.status = 'pending')
       ORDER BY next_attempt_at, id LIMIT ?`,
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
    due: (now, limit) => s.due.all(now, limit).map((row) => toOutboxRow(row)),
    record: (outcomes) => record.immediate(outcomes),
  }
}
