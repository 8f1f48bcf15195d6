import type { FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../errors.js'
import type { Readiness } from '../readiness.js'
import type { ConsoleSessionService } from './console-sessions.js'
import { hostOnly, sessionCookie } from './session-cookies.js'
import './console-types.js'

/** Where the sign-in page may send a browser back to: a console page of this service, nothing else. */
export const consolePath = /^\/console\/[A-Za-z0-9/_.~%?=&+-]{0,2000}$/

/**
 * Every console request: the session of its cookie, if any; then, unless the route is open
 * signed out, a signed-out browser is sent to the sign-in page (303), with the page it
 * asked for when that was a GET. A cookie that names no live session is cleared.
 */
export function sessionGate(
  sessions: ConsoleSessionService,
  readiness: Readiness,
  signedIn: (request: FastifyRequest, principal: string) => void,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    request.consoleSession = null
    const { signedOut, consoleStatic } = request.routeOptions.config
    if (consoleStatic) return
    // The sessions are in the database: while starting or shutting down, a retryable 503.
    if (!readiness.isReady) throw errors.notReady()
    const id = request.cookies[sessionCookie]
    if (id) {
      request.consoleSession = (await sessions.resolve(id)) ?? null
      if (request.consoleSession) signedIn(request, request.consoleSession.principal)
      else reply.clearCookie(sessionCookie, hostOnly)
    }
    if (request.consoleSession || signedOut) return
    const query = new URLSearchParams()
    if (request.method === 'GET' && consolePath.test(request.url)) query.set('next', request.url)
    if (id) query.set('ended', '1')
    const search = query.toString()
    return reply.redirect(`/console/sign-in${search ? `?${search}` : ''}`, 303)
  }
}
