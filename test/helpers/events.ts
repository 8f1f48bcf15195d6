import type { AlertEventInput } from '../../src/store/sqlite/event-writer.js'

const startsAt = '2026-11-22T05:00:00Z'

/** An alert as the webhook route hands it to the store, with `identity` as its identity. */
export function alertEvent(identity: string, overrides: Partial<AlertEventInput> = {}): AlertEventInput {
  return {
    identity,
    fingerprint: identity,
    claimedFingerprint: null,
    status: 'firing',
    startsAtText: startsAt,
    startsAt: Date.parse(startsAt),
    endsAtText: null,
    endsAt: null,
    alertname: 'A',
    instance: 'app-01',
    severity: 'critical',
    alert: { labels: { alertname: 'A' } },
    ...overrides,
  }
}

/** A diagnosis mail of `eventId` as the worker commits it (worker/ports.ts). */
export const reportMail = (eventId: string, subject = 'report') => ({
  eventId,
  kind: 'diagnosis' as const,
  afterEventId: null,
  messageId: `<${eventId}@diag.test>`,
  inReplyTo: null,
  subject,
  recipients: ['oncall@example.com'],
  text: 'text',
  html: '<p>html</p>',
})
