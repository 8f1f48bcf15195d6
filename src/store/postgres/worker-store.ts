import type pg from 'pg'
import { queueSql } from '../../queue/queue-sql.js'
import type { WorkerStore } from '../../worker/ports.js'
import { bundleValues, insertBundleSql } from '../evidence-bundles.js'
import {
  headlineSql,
  headlineValues,
  type IncidentRow,
  insertMailSql,
  mailValues,
  storedEventQuery,
  toIncident,
  toStoredEvent,
} from '../worker-rows.js'
import { inTransaction } from './pool.js'

/**
 * The worker's storage on PostgreSQL (docs/design.md, "Storage"). A result commits with its
 * incident headline, its outbox row and its queue item done (compared with the lease token,
 * the fencing token) in one transaction; `ON CONFLICT DO NOTHING` on the result makes a
 * second replica that processed the same event (its lease had expired) commit nothing.
 */
export function pgWorkerStore(pool: pg.Pool): WorkerStore {
  return {
    async event(id) {
      const { rows } = await pool.query(`${storedEventQuery} $1`, [id])
      return rows[0] ? toStoredEvent(rows[0]) : undefined
    },
    async hasResult(eventId) {
      return ((await pool.query('SELECT 1 FROM results WHERE event_id = $1', [eventId])).rowCount ?? 0) > 0
    },
    async incident(id) {
      const { rows } = await pool.query<IncidentRow>('SELECT * FROM incidents WHERE id = $1', [id])
      return rows[0] ? toIncident(rows[0]) : undefined
    },
    async predecessor(eventId) {
      const { rows } = await pool.query<{ done: boolean; waiting: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM results WHERE event_id = $1) AS done,
          EXISTS (SELECT 1 FROM queue_items WHERE event_id = $1 AND status IN ('queued', 'processing')) AS waiting`,
        [eventId],
      )
      const row = rows[0]
      return row?.done ? 'done' : row?.waiting ? 'waiting' : 'gone'
    },
    commit: (input) =>
      inTransaction(pool, async (client) => {
        const { eventId, incidentId, kind, now } = input
        const inserted = await client.query(
          `INSERT INTO results (event_id, incident_id, kind, result, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (event_id) DO NOTHING`,
          [eventId, incidentId, kind, JSON.stringify(input.result), now],
        )
        if (inserted.rowCount === 0) return false
        if (input.headline) await client.query(headlineSql, headlineValues(input.headline, incidentId))
        if (input.bundle) await client.query(insertBundleSql, bundleValues(eventId, incidentId, input.bundle, now))
        if (input.mail) await client.query(insertMailSql, mailValues(input.mail, now))
        if (input.lease) {
          const lease = input.lease
          await client.query(queueSql.finish, ['done', null, now, now, lease.itemId, lease.token])
        }
        return true
      }),
  }
}
