import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseBearer, type TokenVerifier } from '../auth/tokens.js'
import { errors } from '../errors.js'
import type { Readiness } from '../readiness.js'

/** D28: while starting or shutting down, API requests are refused with a retryable 503. */
export function readinessGate(readiness: Readiness) {
  return async (request: FastifyRequest) => {
    if (request.routeOptions.config.public) return
    if (!readiness.isReady) throw errors.notReady()
  }
}

/**
 * Names the token a request carries, if it is valid and unexpired. Nothing is refused
 * here: the rate limit that comes next keys on the principal, or on the client address
 * for a request without one, so that failed authentications are limited too.
 */
export function identify(verifier: TokenVerifier, onAuthenticated: (request: FastifyRequest) => void) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization
    const token = parseBearer(header)
    if (token === null) {
      request.authRefusal = header === undefined || header === '' ? { reason: 'missing' } : { reason: 'malformed' }
      return
    }
    const checked = verifier.check(token)
    if ('refused' in checked) {
      request.authRefusal =
        checked.refused === 'expired' ? { reason: 'expired', name: checked.name } : { reason: 'unknown' }
      return
    }
    request.principal = checked.principal.name
    request.scopes = checked.principal.scopes
    onAuthenticated(request)
  }
}

/**
 * Every non-public route needs a valid, unexpired bearer token (401) with the route's
 * scope (403); checked before the body is read. A route that declares no scope is refused
 * to every token: a forgotten declaration fails closed.
 */
export async function requireToken(request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
  const { public: open, scope } = request.routeOptions.config
  if (open) return payload
  if (request.principal === '') {
    const refusal = request.authRefusal ?? { reason: 'missing' }
    // An expired token is an operator's to rotate; the others are noise or probing.
    const level = refusal.reason === 'expired' ? 'warn' : 'info'
    request.log[level]({ auth: refusal }, `refused a request: ${refusal.reason} token`)
    throw errors.unauthorized()
  }
  if (!scope || !request.scopes?.includes(scope)) throw errors.forbidden(scope ?? 'required')
  return payload
}

const jsonMediaType = /^application\/json\s*(;|$)/i

/**
 * D8: a body-carrying request must be application/json (parameters such as charset
 * allowed). Checked before the body is read, so a wrong type costs no upload.
 */
export async function requireJson(request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
  if (!jsonMediaType.test(request.headers['content-type'] ?? '')) throw errors.unsupportedMediaType()
  return payload
}
