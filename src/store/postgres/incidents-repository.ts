import type pg from 'pg'
import { type ExplanationRow, explanationSql, explanationView, resultMembers } from '../incident-explanation.js'
import { maxDuplicateRows, type TimelineRows, timelineView } from '../incident-timeline.js'
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
    return detailView(row, eventPage, stored, delivery.rows)
  }

  async explanation(id: string) {
    const found = await this.pool.query('SELECT 1 FROM incidents WHERE id = $1', [id])
    if (found.rowCount === 0) return undefined
    const { rows } = await this.pool.query<
      Omit<ExplanationRow, 'primary_json' | 'explanation_json'> & { result: string }
    >(explanationSql('r.result', 'octet_length(b.bundle)', '$1'), [id])
    const row = rows[0]
    return row ? explanationView(id, { ...row, ...resultMembers(row.result, ['primary', 'explanation']) }) : null
  }

  /** One page of the incident's events and what each led to (incident-timeline.ts). */
  async timeline(id: string, page: EventPage = { limit: 50 }) {
    const found = await this.pool.query<TimelineRows['incident']>(
      'SELECT id, opened_at, status, ended_at, closed_at FROM incidents WHERE id = $1',
      [id],
    )
    const incident = found.rows[0]
    if (!incident) return undefined
    const query = positional(
      `SELECT id, status, transition, received_at, principal, receiver FROM events WHERE incident_id = $id
       ${page.after ? eventsAfter : ''} ORDER BY received_at, id LIMIT $limit`,
      {
        id,
        limit: page.limit + 1,
        ...(page.after ? { afterReceived: page.after.receivedAt, afterId: page.after.id } : {}),
      },
    )
    const events = (await this.pool.query<TimelineRows['events'][number]>(query.text, query.values)).rows
    const more = events.length > page.limit
    if (more) events.pop()
    const ids = [events.map((e) => e.id)]
    const of = async <T extends Record<string, unknown>>(sql: string) =>
      (await this.pool.query<T>(`${sql} WHERE event_id = ANY($1::text[])`, ids)).rows
    const [queue, results, outbox, duplicates] = await Promise.all([
      of<TimelineRows['queue'][number]>('SELECT event_id, created_at, claimed_at, attempts, status FROM queue_items'),
      of<{ event_id: string; kind: string; created_at: string; result: string }>(
        'SELECT event_id, kind, created_at, result FROM results',
      ).then((rows) =>
        rows.map(({ result, ...row }) => {
          const { evidenceTimings_json, primary_json } = resultMembers(result, ['evidenceTimings', 'primary'])
          return { ...row, timings_json: evidenceTimings_json, primary_json }
        }),
      ),
      of<TimelineRows['outbox'][number]>(
        'SELECT event_id, kind, status, attempts, created_at, sent_at, last_error FROM outbox',
      ),
      page.after
        ? []
        : this.pool
            .query<TimelineRows['duplicates'][number]>(
              'SELECT principal, receiver, duplicates, first_at, last_at FROM alert_duplicates WHERE incident_id = $1 ORDER BY first_at LIMIT $2',
              [id, maxDuplicateRows],
            )
            .then((r) => r.rows),
    ])
    return timelineView({ incident, events, queue, results, outbox, duplicates }, more)
  }
}
