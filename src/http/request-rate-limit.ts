import type { RateLimitPluginOptions } from '@fastify/rate-limit'
import type { FastifyRequest } from 'fastify'
import { errors } from '../errors.js'

/** Requests per minute; 0 turns a limit off. */
export interface RequestRateLimits {
  /** Per token, on the rules and incidents APIs (D9). */
  perToken: number
  /** Per client address, for requests without a valid token: public endpoints, failed authentications. */
  perAddress: number
}

/**
 * One rate limit over every route, keyed on the token's name or, without a valid token, on
 * the client address. An authenticated webhook is never limited: Alertmanager drops a
 * notification answered 4xx for good, so overload there is answered 503 by the queue bound,
 * which it retries (docs/design.md, "Rate limits never drop an alert").
 */
export function requestRateLimit(limits: RequestRateLimits): RateLimitPluginOptions {
  const key = (request: FastifyRequest) =>
    request.principal === '' ? `address:${request.ip}` : `token:${request.principal}`
  return {
    global: true,
    hook: 'onRequest',
    timeWindow: 60_000,
    keyGenerator: key,
    max: (_request, k) => (k.startsWith('token:') ? limits.perToken : limits.perAddress),
    allowList: (request, k) =>
      k.startsWith('token:')
        ? limits.perToken === 0 || request.routeOptions.config.webhook === true
        : limits.perAddress === 0,
    errorResponseBuilder: (_request, context) => errors.rateLimited(Math.max(1, Math.ceil(context.ttl / 1000))),
  }
}
