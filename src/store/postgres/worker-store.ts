import type pg from 'pg'
import type { WorkerStore } from '../../worker/ports.js'
import { type IncidentRow, storedEventQuery, toIncident, toStoredEvent } from '../worker-rows.js'
import { resultCommit } from './result-commit.js'

/** The event, whether it has a result, and its incident as JSON (its columns share names with the event's). */
const loadQuery = storedEventQuery.replace(
  'FROM events',
  `, EXISTS (SELECT 1 FROM results r WHERE r.event_id = events.id) AS processed,
   (SELECT row_to_json(i) FROM incidents i WHERE i.id = events.incident_id) AS incident_row
  FROM events`,
)

/**
 * The worker's storage on PostgreSQL (docs/design.md, "Storage"). A result commits with its
 * incident headline, its outbox row and its queue item done (compared with the lease token,
 * the fencing token) in one statement (result-commit.ts); `ON CONFLICT DO NOTHING` on the
 * result makes a second replica that processed the same event (its lease had expired)
 * commit nothing.
 */
export function pgWorkerStore(pool: pg.Pool): WorkerStore {
  return {
    async load(eventId) {
      const { rows } = await pool.query({ name: 'diag_event_to_process', text: `${loadQuery} $1`, values: [eventId] })
      const row = rows[0]
      if (!row) return undefined
      const incident = row.incident_row as IncidentRow | null
      return {
        event: toStoredEvent(row),
        processed: row.processed === true,
        incident: incident ? toIncident(incident) : undefined,
      }
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
    async commit(input) {
      const { rows } = await pool.query<{ inserted: number }>(resultCommit(input))
      return rows[0]?.inserted === 1
    },
  }
}
