// Response schemas of the incidents API: what a client may rely on. Parts that carry what a
// sender or the report wrote (the alert, the diagnosis, the evidence) are free-form objects.

const text = { type: 'string' }
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [{ type: 'null' }, schema] })
const instant = { type: 'string', format: 'date-time' }
const freeForm = { type: 'object', additionalProperties: true }

const summaryProperties = {
  id: text,
  status: { enum: ['open', 'resolved', 'superseded', 'expired'] },
  alertname: text,
  instance: text,
  severity: text,
  /** Alertmanager's fingerprint of the labels, computed by the service. */
  fingerprint: text,
  startsAt: instant,
  openedAt: instant,
  resolvedAt: nullable(instant),
  endedAt: nullable(instant),
  durationSeconds: nullable({ type: 'integer' }),
  supersededBy: nullable(text),
  refires: { type: 'integer' },
}

const headline = {
  type: 'object',
  properties: { branch: text, ruleName: text, category: text, classification: text, confidence: nullable(text) },
}

export const incidentSummary = {
  type: 'object',
  required: Object.keys(summaryProperties),
  properties: { ...summaryProperties, diagnosis: nullable(headline) },
}

export const incidentList = {
  type: 'object',
  required: ['incidents', 'nextCursor'],
  properties: { incidents: { type: 'array', items: incidentSummary }, nextCursor: nullable(text) },
}

export const incidentDetail = {
  type: 'object',
  required: [...Object.keys(summaryProperties), 'events', 'diagnosis', 'evidence', 'delivery', 'nextEventsCursor'],
  properties: {
    ...summaryProperties,
    /**
     * One page of the notifications that changed the incident, in the order they were
     * acknowledged (`eventsLimit`, `eventsCursor`); `delivery` holds the mails of these events.
     */
    events: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: text, status: text, transition: text, receivedAt: instant, alert: freeForm },
      },
    },
    diagnosis: nullable({
      type: 'object',
      properties: {
        primary: freeForm,
        matches: { type: 'array', items: freeForm },
        excerpts: { type: 'array', items: freeForm },
        catalogue: freeForm,
        lifecycle: nullable(text),
        /** How many matches, excerpts and container events the detail left out (the mail has them). */
        omitted: {
          type: 'object',
          properties: {
            matches: { type: 'integer' },
            excerpts: { type: 'integer' },
            containerEvents: { type: 'integer' },
          },
        },
      },
    }),
    evidence: nullable(freeForm),
    delivery: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          eventId: text,
          kind: { enum: ['diagnosis', 'refire', 'recovery'] },
          status: { enum: ['pending', 'sent', 'failed'] },
          attempts: { type: 'integer' },
          lastError: nullable(text),
          sentAt: nullable(instant),
          messageId: text,
          subject: text,
        },
      },
    },
    /** Pass it as `eventsCursor` for the next page of events; null on the last page. */
    nextEventsCursor: nullable(text),
  },
}

/** GET /api/v1/incidents/:id/explanation (docs/api.md, "Explanation"); the shapes are src/store/incident-explanation.ts's. */
export const incidentExplanation = {
  type: 'object',
  required: ['incidentId', 'eventId', 'diagnosedAt', 'primary', 'explanation', 'evidence'],
  properties: {
    incidentId: text,
    /** The diagnosed event: the incident's latest diagnosis. */
    eventId: text,
    diagnosedAt: instant,
    primary: nullable(freeForm),
    /** Rules matched or almost matched with their conditions, and the ranking; null before this version stored it. */
    explanation: nullable(freeForm),
    evidence: nullable({
      type: 'object',
      properties: { storedBytes: { type: 'integer' }, rawBytes: { type: 'integer' }, truncated: { type: 'boolean' } },
    }),
  },
}

/** GET /api/v1/incidents/:id/timeline (docs/api.md, "Timeline"); the entries are src/store/incident-timeline.ts's. */
export const incidentTimeline = {
  type: 'object',
  required: ['incidentId', 'openedAt', 'entries', 'nextEventsCursor'],
  properties: {
    incidentId: text,
    openedAt: instant,
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'at', 'sinceOpenedMs'],
        additionalProperties: true,
        properties: { kind: text, at: instant, sinceOpenedMs: { type: 'integer' } },
      },
    },
    nextEventsCursor: nullable(text),
  },
}
