import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, errors } from '../errors.js'
import { isHostFault } from '../host-faults.js'
import { ReplayBusyError } from '../rules/replay/replay-service.js'
import { PatternCheckUnavailableError, RuleRejectedError, type RuleRejection } from '../rules/rule-errors.js'
import { toDetails } from '../schema-words.js'

/**
 * Turns every error into the D7 body. Fastify's own errors (body limits, content types,
 * JSON syntax, schema validation) map to the catalogue; anything else is a 500 whose
 * message never leaves the process.
 */
// The background probe of the storage runs every second (store/storage-health.ts).
const storageRetryAfterSeconds = 5
// recheck's proof takes up to 3 s; a busy moment usually passes in a few more.
const patternCheckRetryAfterSeconds = 10
// A replay over 1,000 events takes seconds (docs/performance.md, "The console's reads").
const replayRetryAfterSeconds = 10

/** The answer to each reason the rules module refuses a rule. */
const ruleRejections: Record<RuleRejection, [number, string]> = {
  invalid_rule: [400, 'invalid_rule_schema'],
  unsafe_pattern: [400, 'unsafe_regex_pattern'],
  branch_conflict: [409, 'rule_branch_conflict'],
  name_conflict: [409, 'rule_name_conflict'],
  pattern_conflict: [409, 'rule_pattern_conflict'],
  limit_reached: [409, 'rule_limit_reached'],
}

export function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error
  if (error instanceof RuleRejectedError) {
    const [status, code] = ruleRejections[error.reason]
    return new AppError(status, code, error.message, {
      ...(error.details ? { details: error.details } : {}),
      ...(error.conflict ? { fields: { conflictingRule: error.conflict } } : {}),
    })
  }
  if (error instanceof PatternCheckUnavailableError) {
    return errors.patternCheckUnavailable(error.message, patternCheckRetryAfterSeconds)
  }
  if (error instanceof ReplayBusyError) return errors.replayBusy(error.message, replayRetryAfterSeconds)
  const invalid = (message: string, details?: ReturnType<typeof toDetails>) =>
    request.routeOptions.config.invalidBodyCode === 'invalid_rule_schema'
      ? errors.invalidRuleSchema(message, details)
      : request.routeOptions.config.invalidBodyCode === 'invalid_alert_payload'
        ? errors.invalidAlertPayload(message, details)
        : errors.invalidQueryParameter(message, details)

  if (error.validation) {
    if (error.validationContext === 'querystring') {
      return errors.invalidQueryParameter('A query parameter is invalid.', toDetails(error.validation))
    }
    return invalid('The request body does not match the schema.', toDetails(error.validation))
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(request.routeOptions.bodyLimit ?? 0)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return errors.unsupportedMediaType()
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalid('The request body is empty.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalid('The Content-Length header does not match the body.')
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return invalid('The request body is not valid JSON.')
  }
  if (error.statusCode === 400) return invalid('The request is malformed.')
  // A full disk or a locked database: Alertmanager retries a 503, and nothing was stored.
  if (isHostFault(error)) return errors.storageUnavailable(storageRetryAfterSeconds)
  return errors.internal()
}

/** `rejected` counts every error answer by its code, except the service's own failures (500). */
export function registerErrorHandling(app: FastifyInstance, rejected: (reason: string) => void): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, request)
    if (appError.statusCode !== 500) rejected(appError.code)
    if (appError.code === 'storage_unavailable') request.log.warn({ err: error }, 'storage unavailable')
    else if (appError.code === 'pattern_check_unavailable') request.log.warn(appError.message)
    else if (appError.statusCode >= 500 && !(error instanceof AppError)) {
      request.log.error({ err: error }, 'request failed')
    }
    reply.headers(appError.headers)
    reply.code(appError.statusCode).type('application/json; charset=utf-8')
    const body: Record<string, unknown> = { ...appError.fields, error: appError.code, message: appError.message }
    if (appError.details) body.details = appError.details
    return reply.send(body)
  })
  app.setNotFoundHandler((_request, reply) => {
    const { statusCode, code, message } = errors.notFound('No such endpoint.')
    rejected(code)
    return reply.code(statusCode).send({ error: code, message })
  })
}

/** The error body (README, "Errors") as a complete HTTP/1.1 response, for errors raised before Fastify has a request. */
function rawResponse(error: AppError): string {
  const body = JSON.stringify({ error: error.code, message: error.message })
  return [
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/**
 * Node's parser rejects a malformed request line, oversized headers or a timed-out
 * request before any route runs; the client gets the same error body as everywhere else.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const appError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errors.headersTooLarge()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.requestTimeout()
        : errors.malformedRequest()
  if (!socket.writable) {
    socket.destroy()
    return
  }
  // end() flushes the answer first; a peer that never reads it is cut off a second later.
  socket.end(rawResponse(appError))
  setTimeout(() => socket.destroy(), 1000).unref()
}
