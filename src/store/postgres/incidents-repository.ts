import type pg from 'pg'
import {
  detailView,
  type EventPage,
  type EventRow,
  eventsAfter,
  type IncidentFilter,
  type IncidentRow,
  type IncidentsReader,
  listPage,
  listQuery,
  takeEvents,
} from '../incident-views.js'
import { positional } from '../sql-parameters.js'

/**
 * The incidents API's read side on PostgreSQL: the SQLite adapter's filters, pages and
 * shapes (src/store/incident-views.ts); a page reads its limit plus one row, never more.
 */
export class PgIncidentsRepository implements IncidentsReader {
  constructor(private readonly pool: pg.Pool) {}

  async list(filter: IncidentFilter) {
    const { sql, params } = listQuery(filter)
    const query = positional(sql, params)
    const { rows } = await this.pool.query<IncidentRow>(query.text, query.values)
    return listPage(rows, filter.limit)
  }

  async get(id: string, page: EventPage = { limit: 50 }) {
    const incident = await this.pool.query<IncidentRow>('SELECT * FROM incidents WHERE id = $1', [id])
    const row = incident.rows[0]
    if (!row) return undefined
    const query = positional(
      `SELECT id, status, transition, received_at, alert FROM events WHERE incident_id = $id
       ${page.after ? eventsAfter : ''} ORDER BY received_at, id LIMIT $limit`,
      {
        id,
        limit: page.limit + 1,
        ...(page.after ? { afterReceived: page.after.receivedAt, afterId: page.after.id } : {}),
      },
    )
    const eventPage = takeEvents((await this.pool.query<EventRow>(query.text, query.values)).rows, page)
    // The worker's trace (every rule evaluated) is never shown: removed here, not by jsonb,
    // which refuses the escaped U+0000 a log line's NUL byte leaves in a stored result.
    const result = await this.pool.query<{ result: string }>(
      `SELECT result FROM results WHERE incident_id = $1 AND kind = 'diagnosis'
       ORDER BY created_at DESC, event_id DESC LIMIT 1`,
      [id],
    )
    const stored = result.rows[0]?.result
    const delivery = await this.pool.query<Record<string, unknown>>(
      `SELECT o.event_id, o.kind, o.status, o.attempts, o.last_error, o.sent_at, o.message_id, o.subject
       FROM outbox o WHERE o.event_id = ANY($1::text[]) ORDER BY o.id`,
      [eventPage.items.map((e) => e.id)],
    )
    return detailView(row, eventPage, stored === undefined ? undefined : withoutTrace(stored), delivery.rows)
  }
}

/** A stored result's JSON without its `trace`. */
function withoutTrace(json: string): string {
  const { trace: _trace, ...shown } = JSON.parse(json) as Record<string, unknown>
  return JSON.stringify(shown)
}
