import type pg from 'pg'
import type { QueueStats } from '../../metrics.js'
import type { Pruned } from '../sqlite/retention.js'
import type { PgHeardOccurrences } from './heard-occurrences.js'
import { inTransaction } from './pool.js'

// What one replica at a time does for the cluster (docs/design.md, "Storage"): each run
// takes a transaction-scoped advisory lock with pg_try_advisory_xact_lock, so a second
// replica running at the same moment skips, and whichever replica is alive runs the next.

/** Any 64-bit numbers this service alone uses: "diag-retn". */
const retentionLock = '7235064866620813678'

/**
 * Retention (D22) on PostgreSQL: what the SQLite adapter's store/sqlite/retention.ts removes, by
 * the same rule (last heard before the cut, nothing still queued). Undefined when another
 * replica holds the lock: it is doing this very run.
 */
export async function pgPruneOlderThan(
  pool: pg.Pool,
  cutoff: number,
  heard?: PgHeardOccurrences,
): Promise<Pruned | undefined> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
      retentionLock,
    ])
    if (!rows[0]?.locked) return undefined
    // Duplicates heard and not yet written count: they keep their occurrence.
    await heard?.write(client)
    const quiet = await client.query<{ event_ids: string[] | null; incidents: number }>(
      `WITH quiet AS (
         SELECT id FROM incidents i WHERE last_heard_at < $1 AND NOT EXISTS (
           SELECT 1 FROM events e JOIN queue_items q ON q.event_id = e.id
           WHERE e.incident_id = i.id AND q.status IN ('queued', 'processing'))
         FOR UPDATE SKIP LOCKED),
       removed AS (SELECT id FROM events WHERE incident_id IN (SELECT id FROM quiet)),
       deleted AS (DELETE FROM incidents WHERE id IN (SELECT id FROM quiet) RETURNING id)
       SELECT (SELECT array_agg(id) FROM removed) AS event_ids, (SELECT count(*)::int FROM deleted) AS incidents`,
      [cutoff],
    )
    const eventIds = quiet.rows[0]?.event_ids ?? []
    return { records: eventIds.length + (quiet.rows[0]?.incidents ?? 0), eventIds }
  })
}

/** The cluster's queue for the scrape: the depth by status and its oldest waiting event. */
export function pgQueueStats(pool: pg.Pool): () => Promise<QueueStats> {
  return async () => {
    const { rows } = await pool.query<{ queued: number; processing: number; oldest: number | null }>(
      `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
        count(*) FILTER (WHERE status = 'processing')::int AS processing,
        min(created_at) FILTER (WHERE status = 'queued') AS oldest
       FROM queue_items WHERE status IN ('queued', 'processing')`,
    )
    const row = rows[0]
    return { queued: row?.queued ?? 0, processing: row?.processing ?? 0, oldestQueuedAt: row?.oldest ?? null }
  }
}

/** The database's size, for diagnostic_db_size_bytes. */
export const pgDatabaseSize = (pool: pg.Pool) => async () =>
  Number((await pool.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]?.size)

/** The storage health's probe: a small write, as every real write needs the server to take them. */
export const pgProbe = (pool: pg.Pool) => () => pool.query('SELECT txid_current()')
