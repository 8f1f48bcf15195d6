import 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Public routes (health, metrics) skip authentication. */
    public?: boolean
    /** The Alertmanager webhook: never rate limited once authenticated (D9). */
    webhook?: boolean
    /** The D7 code for a 400 from parsing or schema validation on this route. */
    invalidBodyCode?: 'invalid_alert_payload' | 'invalid_rule_schema'
  }
  interface FastifyRequest {
    /** The name of the token that authenticated this request (D5). */
    principal: string
  }
}
