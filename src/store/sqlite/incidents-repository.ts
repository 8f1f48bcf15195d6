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
import { sqliteNamed } from '../sql-parameters.js'
import type { Db } from './database.js'

export type { EventPage, IncidentFilter }

/** The read side for people on SQLite: what the service concluded, without reading mail. */
export class IncidentsRepository implements IncidentsReader {
  constructor(private readonly db: Db) {}

  list(filter: IncidentFilter) {
    const { sql, params } = listQuery(filter)
    return listPage(
      this.db.prepare<Record<string, unknown>, IncidentRow>(sqliteNamed(sql)).iterate(params),
      filter.limit,
    )
  }

  /**
   * One incident with one page of its events (at most `page.limit`, and at most the byte
   * budget of their alerts past the first: an alert that re-fires for months has thousands)
   * and the mails of those events; `nextEvents` is where the next page starts. The rows
   * after the page are never read (`iterate`).
   */
  get(id: string, page: EventPage = { limit: 50 }) {
    const row = this.db.prepare<[string], IncidentRow>('SELECT * FROM incidents WHERE id = ?').get(id)
    if (!row) return undefined
    const rows = this.db
      .prepare<Record<string, unknown>, EventRow>(
        sqliteNamed(`SELECT id, status, transition, received_at, alert FROM events WHERE incident_id = $id
         ${page.after ? eventsAfter : ''} ORDER BY received_at, id LIMIT $limit`),
      )
      .iterate({
        id,
        limit: page.limit + 1,
        ...(page.after ? { afterReceived: page.after.receivedAt, afterId: page.after.id } : {}),
      })
    const eventPage = takeEvents(rows, page)
    // The worker's trace (every rule evaluated) is never shown: left in the database.
    const result = this.db
      .prepare<[string], { result: string }>(
        "SELECT json_remove(result, '$.trace') AS result FROM results WHERE incident_id = ? AND kind = 'diagnosis' ORDER BY created_at DESC, event_id DESC LIMIT 1",
      )
      .get(id)
    const delivery = this.db
      .prepare<[string], Record<string, unknown>>(
        `SELECT o.event_id, o.kind, o.status, o.attempts, o.last_error, o.sent_at, o.message_id, o.subject
         FROM outbox o WHERE o.event_id IN (SELECT value FROM json_each(?)) ORDER BY o.id`,
      )
      .all(JSON.stringify(eventPage.items.map((e) => e.id)))
    return detailView(row, eventPage, result?.result, delivery)
  }
}
