import type { ServerOptions as HttpsServerOptions } from 'node:https'
import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { createAjv, requestValidation } from './ajv.js'
import type { TokenVerifier } from './auth/tokens.js'
import { consolePlugin } from './console/console-plugin.js'
import type { SessionBounds } from './console/console-sessions.js'
import { errors } from './errors.js'
import type { RedactionOptions } from './evidence/redaction-options.js'
import { ConnectionGuard, type ConnectionLimits, defaultConnectionLimits } from './http/connection-guard.js'
import { clientErrorHandler, registerErrorHandling } from './http/error-handler.js'
import { createHttpsServer } from './http/https-server.js'
import { openApiRoute, registerOpenApi } from './http/openapi.js'
import { recordRequestDurations } from './http/request-duration.js'
import { echoRequestId, QuietProbes, requestId } from './http/request-logging.js'
import './http/fastify-types.js'
import { identify, readinessGate, requireToken } from './http/request-gates.js'
import { type RequestRateLimits, requestRateLimit } from './http/request-rate-limit.js'
import { alertRoutes } from './http/routes/alerts.js'
import { healthRoutes } from './http/routes/health.js'
import { incidentRoutes } from './http/routes/incidents.js'
import { appendOnlyGuard, ruleRoutes } from './http/routes/rules.js'
import { type ReplayRoutesDeps, replayRoutes } from './http/routes/rules-replay.js'
import type { Logger } from './logging.js'
import type { Metrics } from './metrics.js'
import type { Readiness } from './readiness.js'
import type { RulesService } from './rules/rules-service.js'
import type { ConsoleStore } from './store/console-port.js'
import type { IncidentsReader } from './store/incident-views.js'
import type { IngestStore } from './store/ingest-port.js'

export interface AppDeps {
  readiness: Readiness
  metrics: Metrics
  tokens: TokenVerifier
  writer: Pick<IngestStore, 'submit'>
  rules: Pick<RulesService, 'list' | 'find' | 'register' | 'check' | 'catalogue'>
  incidents: IncidentsReader
  /** Replay before registering (docs/design.md, "Replay"). */
  replay: ReplayRoutesDeps['replay']
  /** The web console's sessions and reads, and how long a session lasts. */
  console: ConsoleStore
  consoleSessions: SessionBounds
  version: string
  rateLimits: RequestRateLimits
  /** The operator's redaction options, for what the log shows of a refused webhook. */
  redaction?: RedactionOptions
  /** Told of every request but probes: memory is given back after a quiet stretch (quiet-collection.ts). */
  activity?: { touch(): void }
}

/** The transport and logging of the app: TLS material and options, the process's logger. */
export interface AppOptions {
  https: HttpsServerOptions
  logger: Logger
  connectionLimits?: ConnectionLimits
}

/** Builds the Fastify app with every route and hook on its own HTTPS server. */
export async function buildApp(deps: AppDeps, options: AppOptions): Promise<FastifyInstance> {
  const limits = options.connectionLimits ?? defaultConnectionLimits
  deps.metrics.connectionsMax.set(limits.maxConnections)
  const guard = new ConnectionGuard(
    limits,
    (reason) => deps.metrics.connectionsRefused.inc({ reason }),
    (open) => deps.metrics.connectionsOpen.set(open),
  )
  const app = Fastify({
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    loggerInstance: options.logger,
    logController: new QuietProbes(),
    // Our own ids: the header read by requestId, validated, never taken as sent.
    requestIdHeader: false,
    genReqId: requestId,
    serverFactory: (handler) => createHttpsServer(options.https, guard, handler),
    clientErrorHandler,
  }) as unknown as FastifyInstance

  // Our schemas are draft 2020-12 (D10, D19): Fastify validates with the same ajv flavour.
  const ajv = createAjv(requestValidation)
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  // Only JSON bodies exist in this API (D8); text/plain would otherwise be accepted.
  app.removeContentTypeParser('text/plain')
  app.decorateRequest('principal', '')
  app.decorateRequest('scopes', null)
  app.decorateRequest('authRefusal', null)
  registerErrorHandling(app, (reason) => deps.metrics.requestsRejected.inc({ reason }))
  recordRequestDurations(app, deps.metrics.httpDuration)

  app.addHook('onRequest', echoRequestId)
  if (deps.activity) {
    const { activity } = deps
    // Probes and scrapes come every few seconds and leave little behind: they would keep a
    // service that does nothing else from ever being quiet.
    app.addHook('onRequest', (request, _reply, done) => {
      if (!request.routeOptions.config.probe) activity.touch()
      done()
    })
  }
  // A connection that carried a valid token, or a console session, is its token's, not anonymous.
  const authenticated = (request: FastifyRequest, principal: string, webhook: boolean) => {
    const refusal = guard.authenticated(request.raw.socket, principal, webhook)
    if (refusal) throw errors.connectionLimit(refusal)
  }
  app.addHook(
    'onRequest',
    identify(deps.tokens, (request) =>
      authenticated(request, request.principal, request.scopes?.includes('webhook') ?? false),
    ),
  )
  await app.register(rateLimit, requestRateLimit(deps.rateLimits))
  await registerOpenApi(app, deps.version)
  await app.register(healthRoutes, deps)
  await app.register(openApiRoute)
  await app.register(appendOnlyGuard)
  await app.register(async (api) => {
    // Order matters: readiness (503), the rate limit (429, a route-level onRequest hook and
    // so after this one), then the token (401) and the media type (415), both before the
    // body is read.
    api.addHook('onRequest', readinessGate(deps.readiness))
    api.addHook('preParsing', requireToken)
    await api.register(alertRoutes, deps)
    await api.register(ruleRoutes, deps)
    await api.register(replayRoutes, deps)
    await api.register(incidentRoutes, deps)
  })
  await app.register(consolePlugin, {
    prefix: '/console',
    tokens: deps.tokens,
    incidents: deps.incidents,
    console: deps.console,
    rules: deps.rules,
    replay: deps.replay,
    readiness: deps.readiness,
    sessionBounds: deps.consoleSessions,
    signedIn: (request, principal) => authenticated(request, principal, false),
    rejected: (reason) => deps.metrics.requestsRejected.inc({ reason }),
  })
  return app
}
