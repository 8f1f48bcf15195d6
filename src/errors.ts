// The one catalogue of coded errors (CONTRIBUTING.md, D7). Every error response has the body of
// decision D7: {"error": code, "message": one sentence, "details"?: [...]}.

export interface ErrorDetail {
  path: string
  message: string
}

export class AppError extends Error {
  readonly code: string
  readonly statusCode: number
  readonly details: ErrorDetail[] | undefined
  readonly headers: Record<string, string>
  /** Fields of the body besides error, message and details (a rule conflict names the rule). */
  readonly fields: Record<string, unknown>

  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; fields?: Record<string, unknown> } = {},
  ) {
    super(message)
    this.name = 'AppError'
    this.statusCode = statusCode
    this.code = code
    this.details = options.details
    this.headers = options.headers ?? {}
    this.fields = options.fields ?? {}
  }
}

export const errors = {
  unauthorized: () =>
    new AppError(401, 'unauthorized', 'A valid bearer token is required.', {
      headers: { 'www-authenticate': 'Bearer realm="diagnostic-service"' },
    }),
  forbidden: (scope: string) => new AppError(403, 'forbidden', `This token does not have the ${scope} scope.`),
  invalidAlertPayload: (message: string, details?: ErrorDetail[]) =>
    new AppError(400, 'invalid_alert_payload', message, details ? { details } : {}),
  invalidRuleSchema: (message: string, details?: ErrorDetail[]) =>
    new AppError(400, 'invalid_rule_schema', message, details ? { details } : {}),
  invalidQueryParameter: (message: string, details?: ErrorDetail[]) =>
    new AppError(400, 'invalid_query_parameter', message, details ? { details } : {}),
  notFound: (message = 'No such resource.') => new AppError(404, 'not_found', message),
  methodNotAllowed: (allow: string) =>
    new AppError(405, 'method_not_allowed', 'Rules are append-only: this method is not allowed.', {
      headers: { allow },
    }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError(413, 'payload_too_large', `The request body exceeds ${limitBytes} bytes.`),
  unsupportedMediaType: () => new AppError(415, 'unsupported_media_type', 'The request body must be application/json.'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(429, 'rate_limited', 'Too many requests for this token; retry later.', {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  queueFull: (retryAfterSeconds: number) =>
    new AppError(503, 'queue_full', 'The diagnosis queue is full; retry later.', {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  storageUnavailable: (retryAfterSeconds: number) =>
    new AppError(503, 'storage_unavailable', 'The service cannot store data right now; retry later.', {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  replayBusy: (message: string, retryAfterSeconds: number) =>
    new AppError(503, 'replay_busy', message, { headers: { 'retry-after': String(retryAfterSeconds) } }),
  patternCheckUnavailable: (message: string, retryAfterSeconds: number) =>
    new AppError(503, 'pattern_check_unavailable', message, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  /**
   * A connection over a per-token bound (docs/operations.md, "Connections and file
   * descriptors"): 503, which Alertmanager retries, and the connection is closed.
   */
  connectionLimit: (bound: 'token_connections' | 'read_connections', retryAfterSeconds = 5) =>
    new AppError(
      503,
      'connection_limit',
      bound === 'token_connections'
        ? 'This token has as many connections open as it may; reuse one or retry later.'
        : 'Tokens without the webhook scope have as many connections open as they may; retry later.',
      { headers: { 'retry-after': String(retryAfterSeconds), connection: 'close' } },
    ),
  notReady: (retryAfterSeconds = 5) =>
    new AppError(503, 'not_ready', 'The service is not ready to accept requests.', {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  malformedRequest: () => new AppError(400, 'malformed_request', 'The request is not valid HTTP/1.1.'),
  requestTimeout: () => new AppError(408, 'request_timeout', 'The request was not received in time.'),
  headersTooLarge: () => new AppError(431, 'headers_too_large', 'The request headers are too large.'),
  internal: () => new AppError(500, 'internal_error', 'An internal error occurred.'),
  /** A console form without its CSRF token, or with one of another browser (docs/design.md, "The web console"). */
  csrfRefused: () =>
    new AppError(
      403,
      'csrf_refused',
      'This form was refused: it did not come from a page of this console, or the page is too old. Reload the page and try again.',
    ),
}

/** A driver failure wrapped by a repository, so no SQL or path ever reaches a client. */
export class StoreError extends Error {
  constructor(operation: string, options: { cause: unknown }) {
    super(`store operation failed: ${operation}`, options)
    this.name = 'StoreError'
  }
}
