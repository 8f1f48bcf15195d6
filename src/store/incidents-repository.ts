import { takePage, textBytes } from '../page-bounds.js'
import type { Db } from './database.js'
import { boundedDiagnosis } from './incident-detail-bounds.js'

export interface IncidentFilter {
  status?: 'open' | 'resolved' | 'superseded'
  instance?: string
  category?: string
  /** Epoch milliseconds: incidents opened at or after. */
  since?: number
  limit: number
  /** Continue after this (openedAt, id) position. */
  after?: { openedAt: number; id: string }
}

/** One page of an incident's events (docs/api.md, "One incident"). */
export interface EventPage {
  limit: number
  /** Continue after this (receivedAt, id) position. */
  after?: { receivedAt: number; id: string }
}

interface EventRow {
  id: string
  status: string
  transition: string
  received_at: number
  alert: string
}

interface IncidentRow {
  id: string
  status: string
  fingerprint: string
  alertname: string
  instance: string
  severity: string
  starts_at: number
  opened_at: number
  ended_at: number | null
  closed_at: number | null
  superseded_by: string | null
  refires: number
  branch: string | null
  rule_name: string | null
  category: string | null
  classification: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function summary(row: IncidentRow) {
  return {
    id: row.id,
    status: row.status,
    alertname: row.alertname,
    instance: row.instance,
    severity: row.severity,
    fingerprint: row.fingerprint,
    startsAt: iso(row.starts_at),
    openedAt: iso(row.opened_at),
    // Alertmanager's endsAt of the resolution; a superseded incident ended when the next began.
    resolvedAt: row.status === 'resolved' ? iso(row.ended_at) : null,
    endedAt: iso(row.ended_at),
    durationSeconds: row.ended_at === null ? null : Math.max(0, Math.round((row.ended_at - row.starts_at) / 1000)),
    supersededBy: row.superseded_by,
    refires: row.refires,
    diagnosis: row.branch
      ? { branch: row.branch, ruleName: row.rule_name, category: row.category, classification: row.classification }
      : null,
  }
}

/** The read side for people: what the service concluded, without reading mail. */
export class IncidentsRepository {
  constructor(private readonly db: Db) {}

  list(filter: IncidentFilter) {
    const where: string[] = []
    const params: Record<string, unknown> = { limit: filter.limit + 1 }
    if (filter.status) {
      where.push('status = @status')
      params.status = filter.status
    }
    if (filter.instance) {
      where.push('instance = @instance')
      params.instance = filter.instance
    }
    if (filter.category) {
      where.push('category = @category')
      params.category = filter.category
    }
    if (filter.since !== undefined) {
      where.push('opened_at >= @since')
      params.since = filter.since
    }
    if (filter.after) {
      where.push('(opened_at < @afterOpened OR (opened_at = @afterOpened AND id < @afterId))')
      params.afterOpened = filter.after.openedAt
      params.afterId = filter.after.id
    }
    const sql = `SELECT * FROM incidents ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY opened_at DESC, id DESC LIMIT @limit`
    const rows = this.db.prepare<Record<string, unknown>, IncidentRow>(sql).iterate(params)
    // Label values run to 16 KiB each: the byte budget, not only the limit, bounds a page.
    const page = takePage(rows, filter.limit, (row) => textBytes(row.alertname, row.instance, row.severity))
    const last = page.items.at(-1)
    return {
      incidents: page.items.map(summary),
      next: page.more && last ? { openedAt: last.opened_at, id: last.id } : null,
    }
  }

  /**
   * One incident with one page of its events (at most `page.limit`, and at most the byte
   * budget of their alerts past the first: an alert that re-fires for months has thousands)
   * and the mails of those events; `nextEvents` is where the next page starts.
   */
  get(id: string, page: EventPage = { limit: 50 }) {
    const row = this.db.prepare<[string], IncidentRow>('SELECT * FROM incidents WHERE id = ?').get(id)
    if (!row) return undefined
    const rows = this.db
      .prepare<Record<string, unknown>, EventRow>(
        `SELECT id, status, transition, received_at, alert FROM events WHERE incident_id = @id
         ${page.after ? 'AND (received_at > @afterReceived OR (received_at = @afterReceived AND id > @afterId))' : ''}
         ORDER BY received_at, id LIMIT @limit`,
      )
      .iterate({
        id,
        limit: page.limit + 1,
        ...(page.after ? { afterReceived: page.after.receivedAt, afterId: page.after.id } : {}),
      })
    const eventPage = takePage(rows, page.limit, (e) => textBytes(e.alert))
    const events = eventPage.items
    const lastEvent = events.at(-1)
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
      .all(JSON.stringify(events.map((e) => e.id)))
      .map((d) => ({
        eventId: d.event_id,
        kind: d.kind,
        status: d.status,
        attempts: d.attempts,
        lastError: d.last_error,
        sentAt: iso(d.sent_at as number | null),
        messageId: d.message_id,
        subject: d.subject,
      }))
    const diagnosis = result ? boundedDiagnosis(JSON.parse(result.result) as Record<string, unknown>) : null
    return {
      ...summary(row),
      // Every notification that changed the incident, in the order they were acknowledged.
      events: events.map((e) => ({
        id: e.id,
        status: e.status,
        transition: e.transition,
        receivedAt: iso(e.received_at),
        alert: JSON.parse(e.alert) as unknown,
      })),
      diagnosis: diagnosis
        ? {
            primary: diagnosis.primary,
            matches: diagnosis.matches,
            excerpts: diagnosis.excerpts,
            catalogue: diagnosis.catalogue,
            lifecycle: diagnosis.lifecycle ?? null,
            omitted: diagnosis.omitted,
          }
        : null,
      evidence: diagnosis?.evidence ?? null,
      delivery,
      nextEvents: eventPage.more && lastEvent ? { receivedAt: lastEvent.received_at, id: lastEvent.id } : null,
    }
  }
}
