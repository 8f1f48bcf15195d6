import 'fastify'
import type { AuthRefusal, Scope } from '../auth/tokens.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Public routes (health, metrics) skip authentication. */
    public?: boolean
    /** Health probes and metric scrapes: their request lines are logged at debug, and they do not end a quiet stretch (app.ts). */
    probe?: boolean
    /** The Alertmanager webhook: never rate limited once authenticated (docs/design.md). */
    webhook?: boolean
    /** The scope a token needs for this route (403 without it). */
    scope?: Scope
    /** The D7 code for a 400 from parsing or schema validation on this route. */
    invalidBodyCode?: 'invalid_alert_payload' | 'invalid_rule_schema'
  }
  interface FastifyRequest {
    /** The name of the token that authenticated this request (D5). */
    principal: string
    /** What that token may do; null without a valid token. */
    scopes: readonly Scope[] | null
    /** Why the request has no valid token (logged when a route needs one); the name of an expired entry. */
    authRefusal: { reason: AuthRefusal; name?: string } | null
  }
}
