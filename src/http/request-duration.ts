import type { FastifyInstance } from 'fastify'
import type { Histogram } from 'prom-client'

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/**
 * diagnostic_http_request_duration_seconds for every answered request. The route is
 * Fastify's pattern (`/api/v1/incidents/:id`), never the URL a client sent, and a request
 * no route took is `unmatched`: a scanner's thousand paths make no thousand series.
 */
export function recordRequestDurations(
  app: FastifyInstance,
  histogram: Pick<Histogram<'route' | 'method' | 'status_class'>, 'observe'>,
): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched')
    const method = methods.has(request.method) ? request.method : 'other'
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`
    histogram.observe({ route, method, status_class: statusClass }, reply.elapsedTime / 1000)
  })
}
