import type { FastifyInstance } from 'fastify'
import { errors } from '../../errors.js'
import { toInstant } from '../../instant.js'
import { categories } from '../../rules/types.js'
import type { IncidentsRepository } from '../../store/incidents-repository.js'
import { errorResponses } from '../error-responses.js'
import { incidentDetail, incidentList } from './incident-schemas.js'

interface ListQuery {
  status?: 'open' | 'resolved' | 'superseded'
  instance?: string
  category?: string
  since?: string
  limit?: string
  cursor?: string
}

const encodeCursor = (position: { openedAt: number; id: string }) =>
  Buffer.from(`${position.openedAt}:${position.id}`).toString('base64url')

function decodeCursor(cursor: string): { openedAt: number; id: string } {
  const [openedAt, id] = Buffer.from(cursor, 'base64url').toString('utf8').split(':')
  if (!openedAt || !id || !/^\d{1,15}$/.test(openedAt)) {
    throw errors.invalidQueryParameter('The cursor is not valid.', [
      { path: '/cursor', message: 'is not a cursor this service issued' },
    ])
  }
  return { openedAt: Number(openedAt), id }
}

export interface IncidentRoutesDeps {
  incidents: Pick<IncidentsRepository, 'list' | 'get'>
}

/** GET /api/v1/incidents (filters, pagination) and GET /api/v1/incidents/:id. */
export async function incidentRoutes(app: FastifyInstance, deps: IncidentRoutesDeps) {
  app.get<{ Querystring: ListQuery }>('/api/v1/incidents', {
    config: { scope: 'read' },
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { enum: ['open', 'resolved', 'superseded'] },
          instance: { type: 'string', minLength: 1, maxLength: 16384 },
          category: { enum: [...categories] },
          since: { type: 'string', format: 'date-time' },
          limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$' },
          cursor: { type: 'string', maxLength: 200 },
        },
      },
      response: { 200: incidentList, ...errorResponses(400, 401, 403, 429, 503) },
    },
    handler: async (request) => {
      const q = request.query
      const page = deps.incidents.list({
        limit: q.limit ? Number(q.limit) : 50,
        ...(q.status ? { status: q.status } : {}),
        ...(q.instance ? { instance: q.instance } : {}),
        ...(q.category ? { category: q.category } : {}),
        ...(q.since ? { since: toInstant(q.since) } : {}),
        ...(q.cursor ? { after: decodeCursor(q.cursor) } : {}),
      })
      return { incidents: page.incidents, nextCursor: page.next ? encodeCursor(page.next) : null }
    },
  })

  app.get<{ Params: { id: string } }>('/api/v1/incidents/:id', {
    config: { scope: 'read' },
    schema: { response: { 200: incidentDetail, ...errorResponses(401, 403, 404, 429, 503) } },
    handler: async (request) => {
      const incident = deps.incidents.get(request.params.id)
      if (!incident) throw errors.notFound('No incident has this id.')
      return incident
    },
  })
}
