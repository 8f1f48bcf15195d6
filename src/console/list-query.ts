import { errors } from '../errors.js'
import { decodeCursor, encodeCursor, openedAfter } from '../http/routes/incidents.js'
import type { IncidentStatus } from '../incidents/lifecycle.js'
import { categories } from '../rules/types.js'
import type { IncidentFilter } from '../store/incident-views.js'

// The incidents list's filters as GET query parameters, so that a URL saves the view. An
// HTML form sends an empty field as an empty value: empty means no filter. Times are UTC
// (`datetime-local` without a zone, or with `Z`).

export const states = ['open', 'resolved', 'superseded', 'expired'] as const
export const confidences = ['high', 'medium'] as const

const filterNames = ['state', 'branch', 'category', 'confidence', 'instance', 'alertname', 'from', 'to'] as const
export type ListQuery = Partial<Record<(typeof filterNames)[number] | 'after' | 'limit', string>>

const anyOrEmpty = (values: readonly string[]) => ({ enum: ['', ...values] })
const utcTime = '^$|^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?Z?$'

/** The query of the list page and of its CSV: filters, a page position and size. */
export const listQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    state: anyOrEmpty(states),
    branch: { type: 'string', pattern: '^$|^[A-Z]+-\\d{2}$', maxLength: 16 },
    category: anyOrEmpty(categories),
    confidence: anyOrEmpty(confidences),
    instance: { type: 'string', maxLength: 16384 },
    alertname: { type: 'string', maxLength: 16384 },
    from: { type: 'string', pattern: utcTime },
    to: { type: 'string', pattern: utcTime },
    after: { type: 'string', maxLength: 200 },
    limit: { type: 'string', pattern: '^$|^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$' },
  },
}

function instant(text: string, name: string): number {
  const ms = Date.parse(text.endsWith('Z') ? text : `${text}Z`)
  if (Number.isNaN(ms)) {
    throw errors.invalidQueryParameter('A time is not valid.', [
      { path: `/${name}`, message: 'is not a date and time' },
    ])
  }
  return ms
}

/** The store's filter for a query (without its limit and position). */
export function listFilter(query: ListQuery): Omit<IncidentFilter, 'limit'> {
  const filter: Omit<IncidentFilter, 'limit'> = {}
  if (query.state) filter.status = query.state as IncidentStatus
  if (query.branch) filter.branch = query.branch
  if (query.category) filter.category = query.category
  if (query.confidence) filter.confidence = query.confidence
  if (query.instance) filter.instance = query.instance
  if (query.alertname) filter.alertname = query.alertname
  if (query.from) filter.since = instant(query.from, 'from')
  if (query.to) filter.until = instant(query.to, 'to')
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw errors.invalidQueryParameter('The time range is empty.', [{ path: '/to', message: 'is not after from' }])
  }
  return filter
}

export const pagePosition = (query: ListQuery) =>
  query.after ? openedAfter(decodeCursor(query.after, 'after')) : undefined

export const afterCursor = (next: { openedAt: number; id: string }) => encodeCursor(next.openedAt, next.id)

/** The filters of `query` that are set, as a query string with `extra` (a page position) after them. */
export function listSearch(query: ListQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams()
  for (const name of filterNames) {
    const value = query[name]
    if (value) params.set(name, value)
  }
  if (query.limit) params.set('limit', query.limit)
  for (const [name, value] of Object.entries(extra)) params.set(name, value)
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** Whether any filter is set. */
export const filtered = (query: ListQuery) => filterNames.some((name) => Boolean(query[name]))
