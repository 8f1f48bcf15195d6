import type { FastifyInstance } from 'fastify'
import { createAjv, loadSchema, requestValidation } from '../../ajv.js'
import { errors } from '../../errors.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import type { Metrics } from '../../metrics.js'
import type { IngestStore } from '../../store/ingest-port.js'
import { fingerprintMismatches, type WebhookPayload } from '../alerts/alert-events.js'
import { logIngested } from '../alerts/ingest-log.js'
import { refusalOf } from '../alerts/refused-webhooks.js'
import { RepeatedBodies } from '../alerts/repeated-bodies.js'
import { errorResponses } from '../error-responses.js'
import { requireJson } from '../request-gates.js'

export const webhookBodyLimit = 256 * 1024
// A full queue of 50 drains in under a second at the worker's pace (bench:worker); a
// longer hint leaves the worker idle while every sender waits.
const queueFullRetryAfterSeconds = 1

const accepted = {
  type: 'object',
  properties: {
    status: { const: 'accepted' },
    received: { type: 'integer' },
    queued: { type: 'integer' },
    duplicates: { type: 'integer' },
    events: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          eventId: { type: 'string' },
          fingerprint: { type: 'string' },
          status: { type: 'string' },
          duplicate: { type: 'boolean' },
          transition: { type: 'string' },
          incidentId: { type: 'string' },
        },
      },
    },
  },
}

export interface AlertRoutesDeps {
  writer: Pick<IngestStore, 'submit'>
  metrics: Pick<Metrics, 'alertsReceived' | 'alertTransitions' | 'fingerprintMismatches' | 'webhooksRefused'>
  /** The operator's redaction options (DIAG_REDACT_*), applied to what a refusal logs. */
  redaction?: RedactionOptions
}

export async function alertRoutes(app: FastifyInstance, deps: AlertRoutesDeps) {
  const webhookSchema = loadSchema('alertmanager-webhook-v4.schema.json')
  const repeats = new RepeatedBodies()
  const ajv = createAjv(requestValidation)
  // In this plugin only (Fastify encapsulates parsers): JSON as Fastify parses it, prototype
  // poisoning refused, with a repeated body parsed once.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text: string, done) => {
    const known = repeats.lookup(text)
    if (known !== undefined) return done(null, known)
    parseJson(request, text, (error, body) => {
      if (error) done(error, undefined)
      else done(null, repeats.remember(text, body))
    })
  })

  app.post<{ Body: WebhookPayload }>('/api/v1/alerts/alertmanager', {
    bodyLimit: webhookBodyLimit,
    config: { invalidBodyCode: 'invalid_alert_payload', webhook: true, scope: 'webhook' },
    preParsing: requireJson,
    schema: { body: webhookSchema, response: { 202: accepted, ...errorResponses(400, 401, 403, 413, 415, 503) } },
    validatorCompiler: ({ schema }) => repeats.validator(ajv.compile(schema)),
    // Alertmanager drops a refused group for good: say here which alert, and why.
    onError: async (request, _reply, error) => {
      const refusal = refusalOf(error, request, deps.redaction)
      if (!refusal) return
      deps.metrics.webhooksRefused.inc({ reason: refusal.reason })
      request.log.warn({ ...refusal.fields, reason: refusal.reason }, `refused a webhook: ${refusal.reason}`)
    },
    handler: async (request, reply) => {
      const alerts = repeats.eventsOf(request.body)
      const mismatched = fingerprintMismatches(alerts)
      if (mismatched.length > 0) deps.metrics.fingerprintMismatches.inc(mismatched.length)
      const outcome = await deps.writer.submit({
        receiver: request.body.receiver,
        groupKey: request.body.groupKey,
        principal: request.principal,
        alerts,
      })
      if (outcome.kind === 'queue_full') throw errors.queueFull(queueFullRetryAfterSeconds)
      const { received, queued, duplicates, events } = outcome
      // Zeros are skipped: each increment hashes its labels, on every request.
      if (queued > 0) deps.metrics.alertsReceived.inc({ outcome: 'queued' }, queued)
      if (duplicates > 0) deps.metrics.alertsReceived.inc({ outcome: 'duplicate' }, duplicates)
      const recorded = received - queued - duplicates
      if (recorded > 0) deps.metrics.alertsReceived.inc({ outcome: 'recorded' }, recorded)
      for (const event of events) {
        deps.metrics.alertTransitions.inc({ transition: event.transition })
        if (event.superseded) deps.metrics.alertTransitions.inc({ transition: 'superseded' })
      }
      logIngested(request.log, alerts, events)
      request.log.info({ received, queued, duplicates }, 'alerts accepted')
      return reply.code(202).send({ status: 'accepted', received, queued, duplicates, events })
    },
  })
}
