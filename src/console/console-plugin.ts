import cookie from '@fastify/cookie'
import csrfProtection from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TokenVerifier } from '../auth/tokens.js'
import type { Readiness } from '../readiness.js'
import type { ReplayService } from '../rules/replay/replay-service.js'
import type { RulesService } from '../rules/rules-service.js'
import type { ConsoleStore } from '../store/console-port.js'
import type { IncidentsReader } from '../store/incident-views.js'
import { chartsRoutes } from './charts-routes.js'
import { registerConsoleErrors } from './console-errors.js'
import { ConsoleSessionService, type SessionBounds } from './console-sessions.js'
import { incidentListRoutes } from './incident-list-routes.js'
import { incidentRoutes } from './incident-routes.js'
import { pageRenderer } from './page-reply.js'
import { replayRoutes } from './replay-routes.js'
import { rulesRoutes } from './rules-routes.js'
import { csrfCookie, hostOnly } from './session-cookies.js'
import { sessionGate } from './session-gate.js'
import { signInRoutes } from './sign-in-routes.js'
import { staticRoutes } from './static-routes.js'
import { loadConsoleViews } from './views.js'
import './console-types.js'

/**
 * The CSP of every console answer (docs/design.md, "The web console"): nothing but this
 * origin's stylesheet and images, no script at all, forms only to this origin, never in a
 * frame. Inline <svg> is markup, not a script, and its colours come from the stylesheet.
 */
export const consoleSecurityHeaders: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  // The listener is HTTPS only; other hosts under the same name are not this service's to decide.
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
}

export interface ConsoleDeps {
  tokens: Pick<TokenVerifier, 'check' | 'named'>
  incidents: IncidentsReader
  console: ConsoleStore
  /** The API's own services: the replay page replays and registers through them. */
  rules: Pick<RulesService, 'catalogue' | 'register'>
  replay: Pick<ReplayService, 'replay'>
  readiness: Readiness
  sessionBounds: SessionBounds
  /** A request of a live session: its connection counts as its token's (src/http/connection-guard.ts); throws over a bound. */
  signedIn: (request: FastifyRequest, principal: string) => void
  /** Counts each error answer by its code (diagnostic_requests_rejected_total). */
  rejected: (reason: string) => void
}

/**
 * The web console under /console (docs/operations.md, "The web console"): server-rendered
 * pages, a session from a token with the read scope, CSRF tokens on every form. Its own
 * context: the cookie, form and CSRF plugins and the security headers apply to it alone,
 * so the JSON API still takes JSON only.
 */
export async function consolePlugin(app: FastifyInstance, deps: ConsoleDeps) {
  const views = loadConsoleViews()
  const render = pageRenderer(views)
  const sessions = new ConsoleSessionService(deps.console, deps.tokens, deps.sessionBounds)
  // Pages for people, not API operations: left out of the OpenAPI description.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })
  await app.register(helmet, consoleSecurityHeaders)
  await app.register(cookie)
  await app.register(formbody)
  await app.register(csrfProtection, { cookieKey: csrfCookie, cookieOpts: hostOnly })
  app.decorateRequest('consoleSession', null)
  registerConsoleErrors(app, views, deps.rejected)
  app.addHook('onRequest', sessionGate(sessions, deps.readiness, deps.signedIn))
  await app.register(staticRoutes)
  await app.register(signInRoutes, { sessions, bounds: deps.sessionBounds, render })
  await app.register(incidentListRoutes, { incidents: deps.incidents, render })
  await app.register(incidentRoutes, { incidents: deps.incidents, console: deps.console, render })
  await app.register(chartsRoutes, { console: deps.console, render })
  await app.register(rulesRoutes, { rules: deps.rules, console: deps.console, render })
  await app.register(replayRoutes, { replay: deps.replay, rules: deps.rules, render, rejected: deps.rejected })
}
