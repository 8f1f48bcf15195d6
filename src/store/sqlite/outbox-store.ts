import type { DeliveryOutcome, OutboxStore } from '../../mail/outbox-sender.js'
import { mailAlertColumns, toOutboxRow } from '../worker-rows.js'
import { type Db, walSync } from './database.js'

/**
 * The durable outbox for the sender (docs/design.md). A mail is what the service makes
 * seen, so rows are handed out only once synced (wal-sync.ts), together with the outcomes
 * recorded before them: a mail is never sent from a row, nor after an outcome, that power
 * loss could take back (a `sent` lost so would send that mail again after a later one).
 */
export function sqliteOutboxStore(db: Db): OutboxStore {
  const wal = walSync(db)
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
    due: async (now, limit) => {
      const rows = s.due.all(now, limit).map((row) => toOutboxRow(row))
      // Read first, then synced: the sync covers every commit before the read.
      if (rows.length > 0) await wal.durable()
      return rows
    },
    record: (outcomes) => record.immediate(outcomes),
  }
}
