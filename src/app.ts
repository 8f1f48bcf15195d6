import type { ServerOptions as HttpsServerOptions } from 'node:https'
import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { createAjv } from './ajv.js'
import type { TokenVerifier } from './auth/tokens.js'
import { errors } from './errors.js'
import { ConnectionGuard, type ConnectionLimits, defaultConnectionLimits } from './http/connection-guard.js'
import { clientErrorHandler, registerErrorHandling } from './http/error-handler.js'
import { createHttpsServer } from './http/https-server.js'
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

/** The transport and logging of the app: TLS material and options, pino options. */
export interface AppOptions {
  https: HttpsServerOptions
  logger: FastifyServerOptions['logger']
  connectionLimits?: ConnectionLimits
}

/** Builds the Fastify app with every route and hook on its own HTTPS server. */
export async function buildApp(deps: AppDeps, options: AppOptions): Promise<FastifyInstance> {
  const guard = new ConnectionGuard(options.connectionLimits ?? defaultConnectionLimits, (reason) =>
    deps.metrics.connectionsRefused.inc({ reason }),
  )
  const app = Fastify({
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    logger: options.logger,
    serverFactory: (handler) => createHttpsServer(options.https, guard, handler),
    clientErrorHandler: clientErrorHandler,
  }) as unknown as FastifyInstance

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
    api.addHook(
      'onRequest',
      authenticate(deps.tokens, (request) => guard.authenticated(request.raw.socket)),
    )
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
