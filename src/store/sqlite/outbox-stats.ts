import type { OutboxStats } from '../../operations-metrics.js'
import type { Db } from './database.js'

/** The outbox's pending mails and how many of them are retrying, read at scrape time (the `outbox_due` index). */
export function sqliteOutboxStats(db: Db): () => OutboxStats {
  const counts = db.prepare<[], { pending: number; retrying: number | null }>(
    "SELECT count(*) AS pending, sum(attempts > 0) AS retrying FROM outbox WHERE status = 'pending'",
  )
  return () => {
    const row = counts.get()
    return { pending: row?.pending ?? 0, retrying: row?.retrying ?? 0 }
  }
}
