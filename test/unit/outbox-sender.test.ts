import { describe, expect, it } from 'vitest'
import { type DeliveryOutcome, type OutboxRow, OutboxSender } from '../../src/mail/outbox-sender.js'
import type { OutgoingMail } from '../../src/mail/outgoing-mail.js'
import { waitFor } from '../helpers/smtp.js'

const row = (id: number): OutboxRow => ({
  id,
  attempts: 0,
  eventId: `e${id}`,
  kind: 'diagnosis',
  afterEventId: null,
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
      record: (outcomes: readonly DeliveryOutcome[]) => {
        for (const o of outcomes) if (o.state === 'sent') pending.delete(o.id)
      },
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
    const sender = new OutboxSender(store, transport, counters, options, {
      info: () => {},
      warn: () => {},
      error: () => {},
    })
    sender.start()
    expect(sent).toEqual(['e1'])
    pending.set(2, row(2)) // committed while e1 is being sent
    sender.kick()
    releaseFirst()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(sent).toEqual(['e1', 'e2'])
    await sender.stop()
  })

  it('records the outcomes of a batch in one call: sent, failed on 5xx, retried with backoff on 4xx', async () => {
    const calls: DeliveryOutcome[][] = []
    let due = [row(1), row(2), row(3)]
    const store = {
      due: () => {
        const rows = due
        due = []
        return rows
      },
      record: (outcomes: readonly DeliveryOutcome[]) => void calls.push([...outcomes]),
    }
    const failure = (responseCode: number) => Object.assign(new Error(`smtp ${responseCode}`), { responseCode })
    const transport = {
      description: 'test',
      close: () => {},
      send: async (mail: OutgoingMail) => {
        if (mail.eventId === 'e2') throw failure(550)
        if (mail.eventId === 'e3') throw failure(451)
      },
    }
    const sent = { n: 0, inc: () => sent.n++ }
    const failed = { n: 0, inc: () => failed.n++ }
    const options = { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, pollMs: 60_000, batch: 16 }
    const log = { info: () => {}, warn: () => {}, error: () => {} }
    const now = () => 5_000
    const sender = new OutboxSender(
      store,
      transport,
      { notificationsSent: sent, notificationsFailed: failed },
      options,
      log,
      now,
    )
    sender.start()
    await sender.stop()
    expect(calls).toEqual([
      [
        { id: 1, attempts: 1, state: 'sent', at: 5_000 },
        { id: 2, attempts: 1, state: 'failed', error: 'smtp 550' },
        { id: 3, attempts: 1, state: 'retry', nextAttemptAt: 6_000, error: 'smtp 451' },
      ],
    ])
    expect([sent.n, failed.n]).toEqual([1, 1])
  })

  it('survives a full disk while recording, and records the outcome later without sending twice', async () => {
    const pending = new Map<number, OutboxRow>([[1, row(1)]])
    const sent: string[] = []
    let diskFull = true
    const faults: string[] = []
    const store = {
      due: () => [...pending.values()],
      record: (outcomes: readonly DeliveryOutcome[]) => {
        if (diskFull) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
        for (const o of outcomes) if (o.state === 'sent') pending.delete(o.id)
      },
    }
    const transport = {
      description: 'test',
      close: () => {},
      send: async (mail: OutgoingMail) => void sent.push(mail.eventId),
    }
    const counters = { notificationsSent: { inc: () => {} }, notificationsFailed: { inc: () => {} } }
    const options = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, pollMs: 60_000, batch: 16 }
    const health = { failed: (operation: string) => void faults.push(operation) }
    const sender = new OutboxSender(
      store,
      transport,
      counters,
      options,
      { info: () => {}, warn: () => {}, error: () => {} },
      Date.now,
      health,
    )
    sender.start()
    await waitFor(() => faults.length > 0, 5000, 'the fault reported')
    expect(sent).toEqual(['e1'])
    expect(faults).toEqual(['outbox'])
    diskFull = false
    sender.kick()
    await waitFor(() => pending.size === 0, 5000, 'the outcome recorded')
    // The outcome kept in memory was recorded first: e1 is not sent again.
    expect(sent).toEqual(['e1'])
    await sender.stop()
  })
})
