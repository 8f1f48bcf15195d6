import type { FastifyInstance } from 'fastify'
import { errors } from '../errors.js'
import { decodeCursor } from '../http/routes/incidents.js'
import type { ConsoleReads } from '../store/console-port.js'
import type { IncidentsReader } from '../store/incident-views.js'
import { incidentSections, loadIncidentContext } from './incident-sections.js'
import type { PageRenderer } from './page-reply.js'
import { shownDuration, shownTime } from './time-words.js'

export interface IncidentPageDeps {
  incidents: IncidentsReader
  console: ConsoleReads
  render: PageRenderer
}

/** GET /console/incidents/:id: the incident explained, one section after another (incident-sections.ts). */
export async function incidentRoutes(app: FastifyInstance, deps: IncidentPageDeps) {
  app.get<{ Params: { id: string }; Querystring: { events?: string } }>('/incidents/:id', {
    schema: {
      params: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } },
      // `events`: the timeline's next page, a cursor the page itself links to.
      querystring: { type: 'object', properties: { events: { type: 'string', maxLength: 200 } } },
    },
    handler: async (request, reply) => {
      const { events } = request.query
      const after = events ? decodeCursor(events, 'events') : undefined
      const eventsAfter = after ? { receivedAt: after.at, id: after.id } : undefined
      const context = await loadIncidentContext(deps, request.params.id, eventsAfter)
      if (!context) throw errors.notFound('No incident has this id.')
      const { detail } = context
      const sections = incidentSections.flatMap((build) => {
        const section = build(context)
        return section ? [{ ...section, partial: `section-${section.id}` }] : []
      })
      const started = Date.parse(detail.startsAt ?? '')
      const ended = detail.endedAt ? Date.parse(detail.endedAt) : null
      const model = {
        id: detail.id,
        alertname: detail.alertname,
        instance: detail.instance,
        severity: detail.severity,
        status: detail.status,
        startsAt: shownTime(detail.startsAt),
        openedAt: shownTime(detail.openedAt),
        endedAt: shownTime(detail.endedAt),
        lasted: ended === null ? null : shownDuration(ended - started),
        refires: detail.refires,
        headline: detail.diagnosis?.primary ?? null,
        sections,
      }
      return deps.render(request, reply, 'incident', model, {
        title: `${detail.alertname} on ${detail.instance}`,
        current: 'incidents',
      })
    },
  })
}
