import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

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
