import type { ServerOptions as HttpsServerOptions } from 'node:https'
import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { createAjv } from './ajv.js'
import type { TokenVerifier } from './auth/tokens.js'
import { errors } from './errors.js'
import { registerErrorHandling } from './http/error-handler.js'
import './http/fastify-types.js'
import { authenticate, readinessGate } from './http/request-gates.js'
import { alertRoutes } from './http/routes/alerts.js'
import { healthRoutes } from './http/routes/health.js'
import { incidentRoutes } from './http/routes/incidents.js'
import { appendOnlyGuard, ruleRoutes } from './http/routes/rules.js'
import type { Metrics } from './metrics.js'
import type { Readiness } from './readiness.js'
import type { RulesService } from './rules/rules-service.js'
import type { EventWriter } from './store/event-writer.js'
import type { IncidentsRepository } from './store/incidents-repository.js'

export interface AppDeps {
  readiness: Readiness
  metrics: Metrics
  tokens: TokenVerifier
  writer: Pick<EventWriter, 'submit'>
  rules: Pick<RulesService, 'list' | 'find' | 'register'>
  incidents: Pick<IncidentsRepository, 'list' | 'get'>
  version: string
  /** Requests per minute per token; 0 turns the limit off (D9b). */
  rateLimitPerMinute: number
}

/** Timeouts that keep slow or idle clients from pinning connections (issue: transport). */
export const serverTimeouts = {
  connectionTimeout: 30_000,
  keepAliveTimeout: 10_000,
  requestTimeout: 30_000,
  headersTimeout: 10_000,
}

/**
 * Builds the Fastify app with every route and hook; the caller chooses the transport.
 * `server.ts` passes the HTTPS options; tests build it the same way.
 */
export type AppOptions = FastifyServerOptions & { https?: HttpsServerOptions }

export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  const { headersTimeout, ...fastifyTimeouts } = serverTimeouts
  const app: FastifyInstance = Fastify({
    ...fastifyTimeouts,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...options,
  } as FastifyServerOptions) as unknown as FastifyInstance
  // Not a Fastify option: set on the Node server, or Node's 60 s default applies.
  app.server.headersTimeout = headersTimeout

  // Our schemas are draft 2020-12 (D10, D19): Fastify validates with the same ajv flavour.
  const ajv = createAjv({ coerceTypes: false, removeAdditional: false })
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  // Only JSON bodies exist in this API (D8); text/plain would otherwise be accepted.
  app.removeContentTypeParser('text/plain')
  app.decorateRequest('principal', '')
  registerErrorHandling(app)

  await app.register(healthRoutes, deps)
  await app.register(appendOnlyGuard)
  await app.register(async (api) => {
    // Order matters: readiness (503), then authentication (401), then the per-token rate
    // limit (429, a route-level hook and so after these), then media type (415, preParsing).
    api.addHook('onRequest', readinessGate(deps.readiness))
    api.addHook('onRequest', authenticate(deps.tokens))
    if (deps.rateLimitPerMinute > 0) {
      await api.register(rateLimit, {
        max: deps.rateLimitPerMinute,
        timeWindow: 60_000,
        hook: 'onRequest',
        keyGenerator: (request) => request.principal,
        errorResponseBuilder: (_request, context) => errors.rateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
      })
    }
    await api.register(alertRoutes, deps)
    await api.register(ruleRoutes, deps)
    await api.register(incidentRoutes, deps)
  })
  return app
}
