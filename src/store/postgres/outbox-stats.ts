import type pg from 'pg'
import type { OutboxStats } from '../../operations-metrics.js'

/** The outbox's pending mails and how many of them are retrying, read at scrape time (the `outbox_due` index). */
export function pgOutboxStats(pool: pg.Pool): () => Promise<OutboxStats> {
  return async () => {
    const { rows } = await pool.query<OutboxStats>(
      `SELECT count(*)::int AS pending, count(*) FILTER (WHERE attempts > 0)::int AS retrying
         FROM outbox WHERE status = 'pending'`,
    )
    return { pending: rows[0]?.pending ?? 0, retrying: rows[0]?.retrying ?? 0 }
  }
}
