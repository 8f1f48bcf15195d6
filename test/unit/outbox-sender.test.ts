import { describe, expect, it } from 'vitest'
import type { OutgoingMail } from '../../src/report/mail-transport.js'
import { type OutboxRow, OutboxSender } from '../../src/report/outbox-sender.js'

const row = (id: number): OutboxRow => ({
  id,
  attempts: 0,
  eventId: `e${id}`,
  kind: 'diagnosis',
  messageId: `<e${id}@diagnostic-service>`,
  inReplyTo: null,
  subject: 's',
  recipients: ['a@example.com'],
  text: 't',
  html: 'h',
})

describe('OutboxSender (D24)', () => {
  it('sends a row committed during a drain right after it, not a poll interval later', async () => {
    const pending = new Map<number, OutboxRow>([[1, row(1)]])
    const sent: string[] = []
    let releaseFirst: () => void = () => {}
    const store = {
      due: () => [...pending.values()],
      markSent: (id: number) => void pending.delete(id),
      markRetry: () => {},
      markFailed: () => {},
    }
    const transport = {
      description: 'test',
      close: () => {},
      send: (mail: OutgoingMail) => {
        sent.push(mail.eventId)
        return mail.eventId === 'e1' ? new Promise<void>((resolve) => (releaseFirst = resolve)) : Promise.resolve()
      },
    }
    const counters = { notificationsSent: { inc: () => {} }, notificationsFailed: { inc: () => {} } }
    const options = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, pollMs: 60_000, batch: 16 }
    const sender = new OutboxSender(store, transport, counters, options, { warn: () => {}, error: () => {} })
    sender.start()
    expect(sent).toEqual(['e1'])
    pending.set(2, row(2)) // committed while e1 is being sent
    sender.kick()
    releaseFirst()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(sent).toEqual(['e1', 'e2'])
    await sender.stop()
  })
})
