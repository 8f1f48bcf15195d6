import type { IncidentStatus } from '../incidents/lifecycle.js'
import { takePage, textBytes } from '../page-bounds.js'
import { boundedDiagnosis } from './incident-detail-bounds.js'
import type { IncidentExplanation } from './incident-explanation.js'
import type { IncidentTimeline } from './incident-timeline.js'

// The incidents API's read side as both storage adapters answer it (docs/api.md,
// "Incidents"): the same filter, the same pages, the same shapes; only the SQL differs.

export interface IncidentFilter {
  status?: IncidentStatus
  instance?: string
  category?: string
  branch?: string
  alertname?: string
  /** The primary finding's confidence: high or medium. */
  confidence?: string
  /** Epoch milliseconds: incidents opened at or after. */
  since?: number
  /** Epoch milliseconds: incidents opened before. */
  until?: number
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

export interface EventRow {
  id: string
  status: string
  transition: string
  received_at: number
  alert: string
}

export interface IncidentRow {
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
  confidence: string | null
}

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function summary(row: IncidentRow) {
  return {
    id: row.id,
    status: row.status,
    alertname: row.alertname,
    instance: row.instance,
    severity: row.severity,
    fingerprint: row.fingerprint,
    startsAt: iso(Number(row.starts_at)),
    openedAt: iso(Number(row.opened_at)),
    // Alertmanager's endsAt of the resolution; a superseded incident ended when the next began,
    // an expired one when it was last heard.
    resolvedAt: row.status === 'resolved' ? iso(row.ended_at === null ? null : Number(row.ended_at)) : null,
    endedAt: iso(row.ended_at === null ? null : Number(row.ended_at)),
    durationSeconds:
      row.ended_at === null ? null : Math.max(0, Math.round((Number(row.ended_at) - Number(row.starts_at)) / 1000)),
    supersededBy: row.superseded_by,
    refires: row.refires,
    diagnosis: row.branch
      ? {
          branch: row.branch,
          ruleName: row.rule_name,
          category: row.category,
          classification: row.classification,
          confidence: row.confidence,
        }
      : null,
  }
}

/**
 * The filter as a WHERE clause, in `$name` placeholders (each adapter spells them its way).
 * Each equality leads an index of its own ending in (opened_at, id), and the position is a
 * row value, so that any page, the thousandth as the first, is one index range (the
 * migrations 0011_console.sql and 0005_console.sql; docs/design.md, "The web console").
 * Label values are indexed by their first 200 characters, then compared whole.
 */
export function listWhere(filter: IncidentFilter): { where: string; params: Record<string, unknown> } {
  const where: string[] = []
  const params: Record<string, unknown> = { limit: filter.limit + 1 }
  for (const column of ['status', 'category', 'branch', 'confidence'] as const) {
    const value = filter[column]
    if (value === undefined) continue
    where.push(`${column} = $${column}`)
    params[column] = value
  }
  for (const label of ['instance', 'alertname'] as const) {
    const value = filter[label]
    if (value === undefined) continue
    where.push(`substr(${label}, 1, 200) = substr($${label}, 1, 200) AND ${label} = $${label}`)
    params[label] = value
  }
  if (filter.since !== undefined) {
    where.push('opened_at >= $since')
    params.since = filter.since
  }
  if (filter.until !== undefined) {
    where.push('opened_at < $until')
    params.until = filter.until
  }
  if (filter.after) {
    where.push('(opened_at, id) < ($afterOpened, $afterId)')
    params.afterOpened = filter.after.openedAt
    params.afterId = filter.after.id
  }
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params }
}

/** The list's statement for a filter: its page's rows and one more, newest first. */
export function listQuery(filter: IncidentFilter): { sql: string; params: Record<string, unknown> } {
  const { where, params } = listWhere(filter)
  return { sql: `SELECT * FROM incidents ${where} ORDER BY opened_at DESC, id DESC LIMIT $limit`, params }
}

/** One page of the list from its rows (the limit plus one read, at most). */
export function listPage(rows: Iterable<IncidentRow>, limit: number) {
  // Label values run to 16 KiB each: the byte budget, not only the limit, bounds a page.
  const page = takePage(rows, limit, (row) => textBytes(row.alertname, row.instance, row.severity))
  const last = page.items.at(-1)
  return {
    incidents: page.items.map(summary),
    next: page.more && last ? { openedAt: Number(last.opened_at), id: last.id } : null,
  }
}

/** The events query's condition after a page's last event, in `$name` placeholders. */
export const eventsAfter = 'AND (received_at > $afterReceived OR (received_at = $afterReceived AND id > $afterId))'

export const takeEvents = (rows: Iterable<EventRow>, page: EventPage) =>
  takePage(rows, page.limit, (e) => textBytes(e.alert))

/**
 * A stored result as the detail shows it: the worker's trace (every rule evaluated) never,
 * and the explanation and the evidence timings have reads of their own. Removed here, on
 * either adapter, not by the database: PostgreSQL's jsonb refuses the escaped U+0000 a log
 * line's NUL byte leaves in a stored result.
 */
function shownResult(result: Record<string, unknown>): Record<string, unknown> {
  const { trace: _trace, explanation: _explanation, evidenceTimings: _timings, ...shown } = result
  return shown
}

/** The detail answer from what the adapter read (the stored result's JSON as it was stored). */
export function detailView(
  row: IncidentRow,
  eventPage: ReturnType<typeof takeEvents>,
  result: string | undefined,
  deliveryRows: Array<Record<string, unknown>>,
) {
  const events = eventPage.items
  const lastEvent = events.at(-1)
  const diagnosis = result ? boundedDiagnosis(shownResult(JSON.parse(result) as Record<string, unknown>)) : null
  return {
    ...summary(row),
    // Every notification that changed the incident, in the order they were acknowledged.
    events: events.map((e) => ({
      id: e.id,
      status: e.status,
      transition: e.transition,
      receivedAt: iso(Number(e.received_at)),
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
    delivery: deliveryRows.map((d) => ({
      eventId: d.event_id,
      kind: d.kind,
      status: d.status,
      attempts: Number(d.attempts),
      lastError: d.last_error,
      sentAt: d.sent_at === null || d.sent_at === undefined ? null : iso(Number(d.sent_at)),
      messageId: d.message_id,
      subject: d.subject,
    })),
    nextEvents: eventPage.more && lastEvent ? { receivedAt: Number(lastEvent.received_at), id: lastEvent.id } : null,
  }
}

/** What the incidents API reads, whichever database holds it. */
export interface IncidentsReader {
  list(filter: IncidentFilter): ReturnType<typeof listPage> | Promise<ReturnType<typeof listPage>>
  get(
    id: string,
    page?: EventPage,
  ): ReturnType<typeof detailView> | undefined | Promise<ReturnType<typeof detailView> | undefined>
  /**
   * Why the incident's latest diagnosis is what it is (docs/api.md, "Explanation");
   * undefined when the incident does not exist, `null` when it has no diagnosis yet.
   */
  explanation(id: string): Awaitable<IncidentExplanation | null | undefined>
  /**
   * What happened to the incident, in time order, for one page of its events (docs/api.md,
   * "Timeline"); undefined when the incident does not exist.
   */
  timeline(id: string, page?: EventPage): Awaitable<IncidentTimeline | undefined>
}

type Awaitable<T> = T | Promise<T>
