import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { IncidentFilter, IncidentsReader } from '../store/incident-views.js'
import { csvLine } from './csv.js'
import { type ListQuery, listFilter, listQuerySchema, pagePosition } from './list-query.js'
import { listView } from './list-view.js'
import type { PageRenderer } from './page-reply.js'

/** The CSV export holds at most this many incidents, read in pages of 200 (docs/operations.md, "The web console"). */
export const csvBound = 10_000
const defaultPageSize = 50

const csvHeader = [
  'id',
  'state',
  'alertname',
  'instance',
  'severity',
  'startsAt',
  'openedAt',
  'endedAt',
  'durationSeconds',
  'refires',
  'branch',
  'ruleName',
  'category',
  'classification',
  'confidence',
]

/** The incidents of a filter, newest first, as CSV lines: one page of the store in memory at a time. */
async function* csvLines(incidents: IncidentsReader, filter: Omit<IncidentFilter, 'limit'>) {
  yield csvLine(csvHeader)
  let after: IncidentFilter['after']
  let left = csvBound
  do {
    const page = await incidents.list({ ...filter, limit: Math.min(200, left), ...(after ? { after } : {}) })
    for (const i of page.incidents) {
      const d = i.diagnosis
      yield csvLine([
        i.id,
        i.status,
        i.alertname,
        i.instance,
        i.severity,
        i.startsAt,
        i.openedAt,
        i.endedAt,
        i.durationSeconds,
        i.refires,
        d?.branch ?? null,
        d?.ruleName ?? null,
        d?.category ?? null,
        d?.classification ?? null,
        d?.confidence ?? null,
      ])
    }
    left -= page.incidents.length
    after = page.next ?? undefined
  } while (after && left > 0)
}

export interface IncidentListDeps {
  incidents: IncidentsReader
  render: PageRenderer
}

/** GET /console/incidents (filters, keyset pages) and GET /console/incidents.csv (the same filters). */
export async function incidentListRoutes(app: FastifyInstance, deps: IncidentListDeps) {
  app.get<{ Querystring: ListQuery }>('/incidents', {
    schema: { querystring: listQuerySchema },
    handler: async (request, reply) => {
      const { query } = request
      const after = pagePosition(query)
      const page = await deps.incidents.list({
        ...listFilter(query),
        limit: query.limit ? Number(query.limit) : defaultPageSize,
        ...(after ? { after } : {}),
      })
      return deps.render(request, reply, 'incidents', listView(query, page), {
        title: 'Incidents',
        current: 'incidents',
      })
    },
  })

  app.get<{ Querystring: ListQuery }>('/incidents.csv', {
    schema: { querystring: listQuerySchema },
    handler: async (request, reply) => {
      const filter = listFilter(request.query)
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="incidents.csv"')
        .header('cache-control', 'no-store')
      return reply.send(Readable.from(csvLines(deps.incidents, filter)))
    },
  })
}
