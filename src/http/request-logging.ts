import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/** A request id a client may choose: bounded, and nothing a log reader could be fooled by. */
const acceptableRequestId = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/**
 * Each request's id (`reqId` on its log lines, `X-Request-Id` on its answer): the caller's
 * `X-Request-Id` when it is a bounded run of safe characters (a proxy's or a script's, to
 * follow one request across systems), otherwise a random UUID, unique across restarts and
 * replicas (Fastify's default is a counter from 1 at each start).
 */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && acceptableRequestId.test(given) ? given : randomUUID()
}

/** The id given back, on every answer Fastify makes (an onRequest hook, so errors carry it too). */
export async function echoRequestId(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('x-request-id', request.id)
}

/**
 * Fastify's request lines, with those of probes and scrapes (routes with `config.probe`,
 * every few seconds from a kubelet or Prometheus) at debug instead of info: they would
 * otherwise be most of the log.
 */
export class QuietProbes extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (request.routeOptions.config.probe) request.log.debug({ req: request }, 'incoming request')
    else super.incomingRequest(request, reply, metadata)
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error || !request.routeOptions.config.probe) super.requestCompleted(error, request, reply, metadata)
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
