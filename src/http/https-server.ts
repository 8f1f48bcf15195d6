import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server, type ServerOptions } from 'node:https'
import type { Socket } from 'node:net'
import type { ConnectionGuard } from './connection-guard.js'
import { answerPlainHttp } from './plain-http-hint.js'

/**
 * Timeouts that keep slow or idle clients from pinning connections. Node checks the
 * header and request timeouts only every `connectionsCheckingInterval` (30 s by default),
 * which let a slow client stay 40 s past a 10 s bound; checked each second, a bound holds
 * to within a second. A connection that never completes its TLS handshake, or stays idle
 * (no byte either way) before or between requests, is closed after `idleMs`.
 */
export const serverTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 10_000,
  idleMs: 10_000,
  checkEveryMs: 1_000,
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/**
 * The HTTPS server under the Fastify app (its `serverFactory`), with the timeouts above
 * and every connection and request passed through the guard first; plain HTTP to it gets
 * a one-line hint (plain-http-hint.ts).
 */
export function createHttpsServer(tls: ServerOptions, guard: ConnectionGuard, handler: Handler): Server {
  const server = createServer(
    {
      ...tls,
      headersTimeout: serverTimeouts.headersMs,
      requestTimeout: serverTimeouts.requestMs,
      keepAliveTimeout: serverTimeouts.keepAliveMs,
      connectionsCheckingInterval: serverTimeouts.checkEveryMs,
      handshakeTimeout: serverTimeouts.idleMs,
    },
    (request, response) => {
      if (guard.admit(request, response)) handler(request, response)
    },
  )
  server.setTimeout(serverTimeouts.idleMs)
  answerPlainHttp(server, (socket: Socket) => guard.accept(socket), serverTimeouts.idleMs)
  return server
}
