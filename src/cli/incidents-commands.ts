import { parseInstant } from '../instant.js'
import { categories } from '../rules/types.js'
import { apiFailure, type ClientOptions, call } from './client.js'
import { incidentText } from './incident-text.js'
import { type Output, printable, table } from './output.js'

// `appserver-diag incidents list|show`: the incidents API (docs/api.md, "Incidents") for an
// SRE at a terminal and for scripts (--json prints the API's own answer).

const statuses = ['open', 'resolved', 'superseded'] as const

export interface IncidentListOptions {
  filters: Record<string, string>
  /** How many incidents to print at most; Infinity with --all. */
  limit: number
  cursor: string | undefined
}

/** A page size or a count: a whole number from 1. */
const count = (text: string, max: number) => (/^[1-9]\d{0,8}$/.test(text) && Number(text) <= max ? Number(text) : null)

/** The list's flags, checked as the API would check them, in words; a string is the usage error. */
export function incidentListOptions(values: {
  status?: string | undefined
  instance?: string | undefined
  category?: string | undefined
  since?: string | undefined
  limit?: string | undefined
  cursor?: string | undefined
  all?: boolean | undefined
}): IncidentListOptions | string {
  const { status, instance, category, since } = values
  if (status !== undefined && !(statuses as readonly string[]).includes(status))
    return `--status must be one of: ${statuses.join(', ')}`
  if (category !== undefined && !(categories as readonly string[]).includes(category))
    return `--category must be one of: ${categories.join(', ')}`
  if (since !== undefined && parseInstant(since) === undefined)
    return '--since must be an RFC 3339 date and time with its time zone, like 2026-11-22T05:00:00Z'
  const limit = values.limit === undefined ? 50 : count(values.limit, 1e9)
  if (limit === null) return '--limit must be a whole number from 1'
  return {
    filters: {
      ...(status ? { status } : {}),
      ...(instance ? { instance } : {}),
      ...(category ? { category } : {}),
      ...(since ? { since } : {}),
    },
    limit: values.all ? Number.POSITIVE_INFINITY : limit,
    cursor: values.cursor,
  }
}

/** `incidents list`: the pages of the API (200 a request at most) until the limit or the end. */
export async function listIncidents(
  client: ClientOptions,
  options: IncidentListOptions,
  output: Output,
  json: boolean,
): Promise<number> {
  const incidents: Array<Record<string, unknown>> = []
  let cursor = options.cursor ?? null
  do {
    const pageLimit = Math.min(200, options.limit - incidents.length)
    const params = new URLSearchParams({ ...options.filters, limit: String(pageLimit), ...(cursor ? { cursor } : {}) })
    const answer = await call(client, 'GET', `/api/v1/incidents?${params}`)
    if (answer.status !== 200) {
      output.err(apiFailure(answer))
      return 1
    }
    incidents.push(...answer.body.incidents)
    cursor = answer.body.nextCursor
  } while (cursor && incidents.length < options.limit)
  if (json) {
    output.out(JSON.stringify({ incidents, nextCursor: cursor }, null, 2))
    return 0
  }
  const rows = incidents.map((incident) => {
    const diagnosis = incident.diagnosis as Record<string, string> | null
    return [
      incident.id,
      incident.status,
      incident.openedAt,
      incident.severity,
      incident.alertname,
      incident.instance,
      diagnosis ? `${diagnosis.branch} ${diagnosis.ruleName} (${diagnosis.classification})` : 'not diagnosed yet',
    ].map((cell) => printable(cell, 80))
  })
  for (const line of table([['ID', 'STATUS', 'OPENED', 'SEVERITY', 'ALERTNAME', 'INSTANCE', 'DIAGNOSIS'], ...rows]))
    output.out(line)
  output.out(`${incidents.length} incident${incidents.length === 1 ? '' : 's'}`)
  if (cursor) output.out(`more match: the same command with --cursor ${cursor}`)
  return 0
}

/** `incidents show ID`: one incident, one page of its events. */
export async function showIncident(
  client: ClientOptions,
  id: string,
  page: { eventsLimit?: string | undefined; eventsCursor?: string | undefined },
  output: Output,
  json: boolean,
): Promise<number> {
  const params = new URLSearchParams({
    ...(page.eventsLimit ? { eventsLimit: page.eventsLimit } : {}),
    ...(page.eventsCursor ? { eventsCursor: page.eventsCursor } : {}),
  })
  const query = params.size > 0 ? `?${params}` : ''
  const answer = await call(client, 'GET', `/api/v1/incidents/${encodeURIComponent(id)}${query}`)
  if (answer.status !== 200) {
    output.err(apiFailure(answer))
    return 1
  }
  if (json) output.out(JSON.stringify(answer.body, null, 2))
  else for (const line of incidentText(answer.body)) output.out(line)
  return 0
}
