/** The D7 error body, as the OpenAPI description shows it (README, "Errors"). */
const errorBody = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', description: 'the error code' },
    message: { type: 'string' },
    details: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
    conflictingRule: {
      type: 'object',
      description: 'on a rule conflict: the registered rule it conflicts with',
      properties: { id: { type: ['integer', 'string'] }, branch: { type: 'string' }, ruleName: { type: 'string' } },
    },
  },
}

const meaning: Record<number, string> = {
  400: 'The request does not match its schema (details name each problem)',
  401: 'No valid, unexpired bearer token',
  403: 'The token lacks the scope this operation needs',
  404: 'No such resource',
  409: 'The rule conflicts with a registered one (conflictingRule names it), or the catalogue is full',
  413: 'The body is over the limit of this operation',
  415: 'The body is not application/json',
  429: 'Rate limited; Retry-After says when to try again',
  503: 'Not ready, the queue is full, the storage does not take writes, or a replay is already running; retry after Retry-After',
}

/** Response schemas for the error statuses an operation can answer, each with the D7 body. */
export function errorResponses(...statuses: number[]): Record<number, object> {
  return Object.fromEntries(statuses.map((status) => [status, { ...errorBody, description: meaning[status] }]))
}
