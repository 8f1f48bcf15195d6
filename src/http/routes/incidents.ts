import type { FastifyInstance } from 'fastify'
import { errors } from '../../errors.js'
import type { IncidentStatus } from '../../incidents/lifecycle.js'
import { toInstant } from '../../instant.js'
import { categories } from '../../rules/types.js'
import type { IncidentsReader } from '../../store/incident-views.js'
import { errorResponses } from '../error-responses.js'
import { incidentDetail, incidentExplanation, incidentList, incidentTimeline } from './incident-schemas.js'

interface ListQuery {
  status?: IncidentStatus
  instance?: string
  category?: string
  since?: string
  limit?: string
  cursor?: string
}

interface DetailQuery {
  eventsLimit?: string
  eventsCursor?: string
}

/** A page size: 1 to 200 (as text: the query is not coerced). */
const pageLimit = { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$' }
const defaultPageLimit = 50

/** A position in a list as an opaque cursor (the console's pages use the same). */
export const encodeCursor = (at: number, id: string) => Buffer.from(`${at}:${id}`).toString('base64url')

export function decodeCursor(cursor: string, name: string): { at: number; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split(':')
  if (!at || !id || !/^\d{1,15}$/.test(at)) {
    throw errors.invalidQueryParameter('The cursor is not valid.', [
      { path: `/${name}`, message: 'is not a cursor this service issued' },
    ])
  }
  return { at: Number(at), id }
}

export const openedAfter = ({ at, id }: { at: number; id: string }) => ({ openedAt: at, id })
const receivedAfter = ({ at, id }: { at: number; id: string }) => ({ receivedAt: at, id })

/** One page of an incident's events (the detail and the timeline): an incident can have thousands. */
const eventPageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { eventsLimit: pageLimit, eventsCursor: { type: 'string', maxLength: 200 } },
}

const eventPageOf = (q: DetailQuery) => ({
  limit: q.eventsLimit ? Number(q.eventsLimit) : defaultPageLimit,
  ...(q.eventsCursor ? { after: receivedAfter(decodeCursor(q.eventsCursor, 'eventsCursor')) } : {}),
})

const eventsCursorOf = (next: { receivedAt: number; id: string } | null) =>
  next ? encodeCursor(next.receivedAt, next.id) : null

export interface IncidentRoutesDeps {
  incidents: IncidentsReader
}

/**
 * GET /api/v1/incidents (filters, pagination), GET /api/v1/incidents/:id, and what the
 * console shows of one: /explanation (why this branch) and /timeline (docs/api.md).
 */
export async function incidentRoutes(app: FastifyInstance, deps: IncidentRoutesDeps) {
  app.get<{ Querystring: ListQuery }>('/api/v1/incidents', {
    config: { scope: 'read' },
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { enum: ['open', 'resolved', 'superseded', 'expired'] },
          instance: { type: 'string', minLength: 1, maxLength: 16384 },
          category: { enum: [...categories] },
          since: { type: 'string', format: 'date-time' },
          limit: pageLimit,
          cursor: { type: 'string', maxLength: 200 },
        },
      },
      response: { 200: incidentList, ...errorResponses(400, 401, 403, 429, 503) },
    },
    handler: async (request) => {
      const q = request.query
      const page = await deps.incidents.list({
        limit: q.limit ? Number(q.limit) : defaultPageLimit,
        ...(q.status ? { status: q.status } : {}),
        ...(q.instance ? { instance: q.instance } : {}),
        ...(q.category ? { category: q.category } : {}),
        ...(q.since ? { since: toInstant(q.since) } : {}),
        ...(q.cursor ? { after: openedAfter(decodeCursor(q.cursor, 'cursor')) } : {}),
      })
      return {
        incidents: page.incidents,
        nextCursor: page.next ? encodeCursor(page.next.openedAt, page.next.id) : null,
      }
    },
  })

  app.get<{ Params: { id: string }; Querystring: DetailQuery }>('/api/v1/incidents/:id', {
    config: { scope: 'read' },
    schema: {
      // One page of the incident's events, and their mails.
      querystring: eventPageQuery,
      response: { 200: incidentDetail, ...errorResponses(400, 401, 403, 404, 429, 503) },
    },
    handler: async (request) => {
      const incident = await deps.incidents.get(request.params.id, eventPageOf(request.query))
      if (!incident) throw errors.notFound('No incident has this id.')
      const { nextEvents, ...detail } = incident
      return { ...detail, nextEventsCursor: eventsCursorOf(nextEvents) }
    },
  })

  app.get<{ Params: { id: string } }>('/api/v1/incidents/:id/explanation', {
    config: { scope: 'read' },
    schema: { response: { 200: incidentExplanation, ...errorResponses(401, 403, 404, 429, 503) } },
    handler: async (request) => {
      const explained = await deps.incidents.explanation(request.params.id)
      if (explained === undefined) throw errors.notFound('No incident has this id.')
      if (explained === null) throw errors.notFound('This incident has no diagnosis yet.')
      return explained
    },
  })

  app.get<{ Params: { id: string }; Querystring: DetailQuery }>('/api/v1/incidents/:id/timeline', {
    config: { scope: 'read' },
    schema: {
      // The steps of one page of the incident's events, as the detail pages them.
      querystring: eventPageQuery,
      response: { 200: incidentTimeline, ...errorResponses(400, 401, 403, 404, 429, 503) },
    },
    handler: async (request) => {
      const timeline = await deps.incidents.timeline(request.params.id, eventPageOf(request.query))
      if (!timeline) throw errors.notFound('No incident has this id.')
      const { nextEvents, ...rest } = timeline
      return { ...rest, nextEventsCursor: eventsCursorOf(nextEvents) }
    },
  })
}
