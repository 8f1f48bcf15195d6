import { type ExplanationRow, explanationSql, explanationView } from '../incident-explanation.js'
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
    const result = this.db
      .prepare<[string], { result: string }>(
        "SELECT result FROM results WHERE incident_id = ? AND kind = 'diagnosis' ORDER BY created_at DESC, event_id DESC LIMIT 1",
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

  explanation(id: string) {
    if (!this.db.prepare('SELECT 1 FROM incidents WHERE id = ?').get(id)) return undefined
    const members =
      "json_extract(r.result, '$.primary') AS primary_json, json_extract(r.result, '$.explanation') AS explanation_json"
    const row = this.db.prepare<[string], ExplanationRow>(explanationSql(members, 'length(b.bundle)', '?')).get(id)
    return row ? explanationView(id, row) : null
  }

  /** One page of the incident's events and what each led to (incident-timeline.ts). */
  timeline(id: string, page: EventPage = { limit: 50 }) {
    const incident = this.db
      .prepare<[string], TimelineRows['incident']>(
        'SELECT id, opened_at, status, ended_at, closed_at FROM incidents WHERE id = ?',
      )
      .get(id)
    if (!incident) return undefined
    const events = this.db
      .prepare<Record<string, unknown>, TimelineRows['events'][number]>(
        sqliteNamed(`SELECT id, status, transition, received_at, principal, receiver FROM events WHERE incident_id = $id
         ${page.after ? eventsAfter : ''} ORDER BY received_at, id LIMIT $limit`),
      )
      .all({
        id,
        limit: page.limit + 1,
        ...(page.after ? { afterReceived: page.after.receivedAt, afterId: page.after.id } : {}),
      })
    const more = events.length > page.limit
    if (more) events.pop()
    const ids = JSON.stringify(events.map((e) => e.id))
    const of = (sql: string) => this.db.prepare(`${sql} WHERE event_id IN (SELECT value FROM json_each(?))`).all(ids)
    const rows: TimelineRows = {
      incident,
      events,
      queue: of('SELECT event_id, created_at, claimed_at, attempts, status FROM queue_items') as TimelineRows['queue'],
      results: of(
        `SELECT event_id, kind, created_at, json_extract(result, '$.evidenceTimings') AS timings_json,
         json_extract(result, '$.primary') AS primary_json FROM results`,
      ) as TimelineRows['results'],
      outbox: of(
        'SELECT event_id, kind, status, attempts, created_at, sent_at, last_error FROM outbox',
      ) as TimelineRows['outbox'],
      duplicates: page.after
        ? []
        : (this.db
            .prepare(
              'SELECT principal, receiver, duplicates, first_at, last_at FROM alert_duplicates WHERE incident_id = ? ORDER BY first_at LIMIT ?',
            )
            .all(id, maxDuplicateRows) as TimelineRows['duplicates']),
    }
    return timelineView(rows, more)
  }
}
