import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Metrics } from '../../metrics.js'
import type { Readiness } from '../../readiness.js'

export interface HealthRoutesDeps {
  readiness: Readiness
  metrics: Pick<Metrics, 'registry'>
  version: string
}

/** True when the Accept header ranks application/json above the text format (D26). */
function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false
  let json = -1
  let text = -1
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';')
    const q = Number(
      params
        .map((p) => p.trim())
        .find((p) => p.startsWith('q='))
        ?.slice(2) ?? 1,
    )
    const weight = Number.isFinite(q) ? q : 0
    if (type === 'application/json') json = Math.max(json, weight)
    else if (type === 'text/plain' || type.startsWith('application/openmetrics-text')) text = Math.max(text, weight)
  }
  return json > 0 && json > text
}

/**
 * The exposition rendered at most once per `maxAgeMs` and shared by every request in that
 * time: a flood of scrapes costs one rendering a second, not one per request.
 */
export function sharedExposition(render: () => Promise<string>, maxAgeMs = 1000, now = Date.now) {
  let cached: { at: number; text: Promise<string> } | undefined
  return (): Promise<string> => {
    const at = now()
    if (!cached || at - cached.at >= maxAgeMs) {
      const text = render()
      cached = { at, text }
      // A failed rendering is not kept: the next request renders again.
      text.catch(() => {
        if (cached?.text === text) cached = undefined
      })
    }
    return cached.text
  }
}

export async function healthRoutes(app: FastifyInstance, deps: HealthRoutesDeps) {
  const { readiness, metrics, version } = deps
  // Probes and scrapes come every few seconds: their request lines are debug (request-logging.ts).
  const quiet = { config: { public: true, probe: true } }
  const render = sharedExposition(() => metrics.registry.metrics())

  app.get('/health/live', quiet, async () => ({ status: 'UP' }))

  app.get('/health/ready', quiet, async (_request, reply) => {
    const probe = readiness.probe
    if (probe.up) return { status: 'UP' }
    return reply.code(503).send({ status: 'DOWN', reason: probe.reason })
  })

  const exposition = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/health') && prefersJson(request.headers.accept)) {
      return { status: readiness.probe.up ? 'UP' : 'DOWN', state: readiness.state, version }
    }
    const text = await render()
    return reply.type(metrics.registry.contentType).send(text)
  }
  app.get('/health', quiet, exposition)
  app.get('/metrics', quiet, exposition)
}
