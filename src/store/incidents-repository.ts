import type { Db } from './database.js'

export interface IncidentFilter {
  status?: 'open' | 'resolved'
  instance?: string
  category?: string
  /** Epoch milliseconds: incidents opened at or after. */
  since?: number
  limit: number
  /** Continue after this (openedAt, id) position. */
  after?: { openedAt: number; id: string }
}

interface IncidentRow {
  id: string
  status: string
  alertname: string
  instance: string
  severity: string
  starts_at: string
  opened_at: number
  resolved_at: number | null
  branch: string | null
  rule_name: string | null
  category: string | null
  classification: string | null
  firing_event_id: string
  resolved_event_id: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function summary(row: IncidentRow) {
  return {
    id: row.id,
    status: row.status,
    alertname: row.alertname,
    instance: row.instance,
    severity: row.severity,
    startsAt: row.starts_at,
    openedAt: iso(row.opened_at),
    resolvedAt: iso(row.resolved_at),
    diagnosis: row.branch
      ? { branch: row.branch, ruleName: row.rule_name, category: row.category, classification: row.classification }
      : null,
  }
}

/** The read side for people (D30): what the service concluded, without reading mail. */
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
    const rows = this.db.prepare<Record<string, unknown>, IncidentRow>(sql).all(params)
    const page = rows.slice(0, filter.limit)
    const last = page.at(-1)
    return {
      incidents: page.map(summary),
      next: rows.length > filter.limit && last ? { openedAt: last.opened_at, id: last.id } : null,
    }
  }

  get(id: string) {
    const row = this.db.prepare<[string], IncidentRow>('SELECT * FROM incidents WHERE id = ?').get(id)
    if (!row) return undefined
    const event = (eventId: string | null) => {
      if (!eventId) return null
      const e = this.db
        .prepare<[string], { id: string; status: string; received_at: number; alert: string }>(
          'SELECT id, status, received_at, alert FROM events WHERE id = ?',
        )
        .get(eventId)
      return e
        ? { id: e.id, status: e.status, receivedAt: iso(e.received_at), alert: JSON.parse(e.alert) as unknown }
        : null
    }
    const result = this.db
      .prepare<[string], { result: string }>('SELECT result FROM results WHERE event_id = ?')
      .get(row.firing_event_id)
    const delivery = this.db
      .prepare<[string, string | null], Record<string, unknown>>(
        `SELECT kind, status, attempts, last_error, sent_at, message_id, subject FROM outbox
         WHERE event_id IN (?, ?) ORDER BY id`,
      )
      .all(row.firing_event_id, row.resolved_event_id)
      .map((d) => ({
        kind: d.kind,
        status: d.status,
        attempts: d.attempts,
        lastError: d.last_error,
        sentAt: iso(d.sent_at as number | null),
        messageId: d.message_id,
        subject: d.subject,
      }))
    const diagnosis = result ? (JSON.parse(result.result) as Record<string, unknown>) : null
    return {
      ...summary(row),
      firingEvent: event(row.firing_event_id),
      resolvedEvent: event(row.resolved_event_id),
      diagnosis: diagnosis
        ? {
            primary: diagnosis.primary,
            matches: diagnosis.matches,
            excerpts: diagnosis.excerpts,
            catalogue: diagnosis.catalogue,
          }
        : null,
      evidence: diagnosis?.evidence ?? null,
      delivery,
    }
  }
}
