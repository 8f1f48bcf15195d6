import type { ErrorObject } from 'ajv'
import type { FastifyError, FastifyRequest } from 'fastify'
import { redactAlert, redactGroupKey } from '../../evidence/redact-alert.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import type { WebhookRefusalReason } from '../../metrics.js'
import { toDetails } from '../../schema-words.js'
import { toAppError } from '../error-handler.js'

// A webhook refused with a 4xx makes Alertmanager drop the whole group for good, so the
// service's own log must say what was refused and why (docs/operations.md, "A refused
// webhook"): which receiver and group, which alert, its labels (redacted), the reason.

export interface Refusal {
  reason: WebhookRefusalReason
  /** The log line's fields. */
  fields: Record<string, unknown>
}

/** Enough of a label set to find the alert, and never a large or secret value. */
const maxLabels = 32
const maxValueChars = 256
const clip = (text: string, max = maxValueChars) => (text.length > max ? `${text.slice(0, max)}…` : text)

function loggedLabels(labels: unknown, redaction: RedactionOptions): Record<string, string> | undefined {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return undefined
  const entries = Object.entries(labels)
    .slice(0, maxLabels)
    .map(([name, value]) => [clip(name), clip(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))])
  return redactAlert({ labels: Object.fromEntries(entries) as Record<string, string> }, redaction).labels
}

/** The error that says most: a missing label first, since that is what a route can prevent. */
function firstError(errors: ErrorObject[]): ErrorObject | undefined {
  return errors.find((e) => e.keyword === 'required' && /^\/alerts\/\d+\/labels$/.test(e.instancePath)) ?? errors[0]
}

function validationReason(error: ErrorObject | undefined, inLabels: boolean): WebhookRefusalReason {
  if (error?.keyword === 'required') return inLabels ? 'missing_label' : 'missing_field'
  if (inLabels) return 'invalid_label'
  return error?.keyword === 'format' ? 'invalid_time' : 'invalid_value'
}

const parseReasons: Record<string, WebhookRefusalReason> = {
  payload_too_large: 'too_large',
  unsupported_media_type: 'unsupported_media_type',
}

/** What to log and count for an error answer of the webhook; undefined when it was not a refused body. */
export function refusalOf(
  error: FastifyError,
  request: FastifyRequest,
  redaction: RedactionOptions = {},
): Refusal | undefined {
  const answer = toAppError(error, request)
  if (![400, 413, 415].includes(answer.statusCode)) return undefined
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
    string,
    unknown
  >
  const fields: Record<string, unknown> = { status: answer.statusCode }
  if (typeof body.receiver === 'string') fields.receiver = clip(body.receiver)
  if (typeof body.groupKey === 'string') fields.groupKey = clip(redactGroupKey(body.groupKey, redaction), 1024)
  if (error.validation) {
    const first = firstError(error.validation as ErrorObject[])
    const at = /^\/alerts\/(\d+)(\/labels)?/.exec(first?.instancePath ?? '')
    if (at) {
      const index = Number(at[1])
      fields.alertIndex = index
      const alerts = Array.isArray(body.alerts) ? body.alerts : []
      const labels = loggedLabels((alerts[index] as { labels?: unknown } | undefined)?.labels, redaction)
      if (labels) fields.labels = labels
    }
    fields.errors = toDetails(error.validation as ErrorObject[], 5)
    return { reason: validationReason(first, at?.[2] !== undefined), fields }
  }
  const reason =
    parseReasons[answer.code] ??
    (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
      ? 'empty_body'
      : error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
        ? 'invalid_json'
        : 'malformed')
  return { reason, fields }
}
