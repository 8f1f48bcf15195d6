import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { smtpTransport } from '../../src/mail/mail-transport.js'
import { OutboxSender, type OutboxStore } from '../../src/mail/outbox-sender.js'
import type { OutboxStats } from '../../src/operations-metrics.js'
import type { IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { pgOutboxStats } from '../../src/store/postgres/outbox-stats.js'
import { pgOutboxStore } from '../../src/store/postgres/outbox-store.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { sqliteOutboxStats } from '../../src/store/sqlite/outbox-stats.js'
import { sqliteOutboxStore } from '../../src/store/sqlite/outbox-store.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// The outbox (D24) on both adapters, and on PostgreSQL shared by replicas (docs/design.md,
// "Storage"): every mail sent once, a replica that dies mid-send replaced by a re-send of
// the same message.

interface Opened {
  /** One outbox store per replica, all on one database. */
  stores: OutboxStore[]
  writer: IngestStore
  /** What diagnostic_mails_pending and _retrying show. */
  stats(): OutboxStats | Promise<OutboxStats>
  sql(query: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const claimMs = 1000

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-outbox-conformance-')), 'o.db'))
  return {
    stores: [sqliteOutboxStore(db)],
    writer: new EventWriter(db, { queueCapacity: 1000 }),
    stats: sqliteOutboxStats(db),
    sql: async (query) => {
      const statement = db.prepare(query)
      if (statement.reader) return statement.all() as Array<Record<string, unknown>>
      statement.run()
      return []
    },
    close: async () => {
      db.close()
    },
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database(3)
  return {
    stores: db.pools.map((pool) => pgOutboxStore(pool, { claimMs })),
    writer: new PgEventWriter(db.pool, { queueCapacity: 1000 }),
    stats: pgOutboxStats(db.pool),
    sql: db.rows,
    close: db.close,
  }
}

afterAll(() => server.stop())

/** `count` events, each with a diagnosis mail in the outbox, due now. */
async function mails(store: Opened, count: number) {
  const alerts = Array.from({ length: count }, (_, i) => alertEvent(`mail-${i}`))
  await store.writer.submit({ receiver: 'r', groupKey: 'g', principal: 'p', alerts })
  await store.sql(`INSERT INTO outbox (event_id, kind, after_event_id, message_id, in_reply_to, subject, recipients,
    text_body, html_body, next_attempt_at, created_at)
    SELECT id, 'diagnosis', NULL, '<' || id || '@diag.test>', NULL, 'report ' || id, '["oncall@example.com"]',
      'text', '<p>html</p>', 0, 0 FROM events`)
}

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('outbox on %s', (_name, open) => {
  beforeAll(async () => {
    if (open === postgres) await server.start()
  }, 120_000)

  it('hands out due mails oldest first and never again once recorded sent', async () => {
    const store = await open()
    try {
      await mails(store, 3)
      const [outbox] = store.stores as [OutboxStore]
      const due = await outbox.due(Date.now(), 10)
      expect(due).toHaveLength(3)
      await outbox.record(due.map((row) => ({ id: row.id, attempts: 1, claim: row.claim, state: 'sent', at: 1 })))
      expect(await outbox.due(Date.now() + 10 * claimMs, 10)).toEqual([])
      const sent = await store.sql("SELECT count(*) AS n FROM outbox WHERE status = 'sent'")
      expect(Number(sent[0]?.n)).toBe(3)
    } finally {
      await store.close()
    }
  })

  it('counts the pending mails and, among them, those retrying, for the outbox gauges', async () => {
    const store = await open()
    try {
      expect(await store.stats()).toEqual({ pending: 0, retrying: 0 })
      await mails(store, 4)
      expect(await store.stats()).toEqual({ pending: 4, retrying: 0 })
      const [outbox] = store.stores as [OutboxStore]
      const [sent, retried, failed] = await outbox.due(Date.now(), 3)
      if (!sent || !retried || !failed) throw new Error('three mails were due')
      await outbox.record([
        { id: sent.id, attempts: 1, claim: sent.claim, state: 'sent', at: 1 },
        { id: retried.id, attempts: 1, claim: retried.claim, state: 'retry', nextAttemptAt: 1, error: 'refused' },
        { id: failed.id, attempts: 5, claim: failed.claim, state: 'failed', error: '550 no such user' },
      ])
      // Sent and failed for good are no longer pending; the retried one is both.
      expect(await store.stats()).toEqual({ pending: 2, retrying: 1 })
    } finally {
      await store.close()
    }
  })

  it('sends every mail exactly once through a real SMTP server, every replica sending', async () => {
    const smtp = await startSmtp()
    const store = await open()
    const sentBy = store.stores.map(() => 0)
    const senders = store.stores.map(
      (outbox, replica) =>
        new OutboxSender(
          outbox,
          smtpTransport(smtp.settings(), 'diag@example.com'),
          {
            notificationsSent: {
              inc: () => {
                sentBy[replica] = (sentBy[replica] ?? 0) + 1
              },
            },
            notificationsFailed: { inc: () => {} },
          },
          { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, pollMs: 100, batch: 4 },
          { info: () => {}, warn: () => {}, error: () => {} },
        ),
    )
    try {
      await mails(store, 30)
      for (const sender of senders) sender.start()
      await waitFor(
        async () => Number((await store.sql("SELECT count(*) AS n FROM outbox WHERE status = 'sent'"))[0]?.n) === 30,
        30_000,
        'every mail recorded sent',
      )
      const ids = smtp.mails.map((mail) => mail.headers['message-id'])
      expect(ids).toHaveLength(30)
      expect(new Set(ids).size).toBe(30)
      // Each mail was delivered by one sender alone: the senders' counts add up to 30.
      expect(sentBy.reduce((a, b) => a + b, 0)).toBe(30)
    } finally {
      for (const sender of senders) await sender.stop()
      await smtp.close()
      await store.close()
    }
  })
})

describe('outbox on PostgreSQL, a replica dying mid-send', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('re-sends the same message under a new claim once the first expired, and fences the first off', async () => {
    const store = await postgres()
    try {
      await mails(store, 2)
      const [a, b] = store.stores as [OutboxStore, OutboxStore]
      const now = Date.now()
      const taken = await a.due(now, 10)
      expect(taken).toHaveLength(2)
      // Claimed: another replica gets nothing while the claim holds.
      expect(await b.due(now, 10)).toEqual([])
      // Replica a dies before recording; its claim expires and b takes the same messages.
      const again = await b.due(now + claimMs + 1, 10)
      expect(again.map((row) => row.messageId)).toEqual(taken.map((row) => row.messageId))
      expect(again.map((row) => row.claim)).not.toContain(taken[0]?.claim)
      await b.record(again.map((row) => ({ id: row.id, attempts: 1, claim: row.claim, state: 'sent', at: 2 })))
      // a's late outcome, under its expired claim, changes nothing.
      await a.record(taken.map((row) => ({ id: row.id, attempts: 1, claim: row.claim, state: 'failed', error: 'x' })))
      const rows = await store.sql('SELECT status, sent_at FROM outbox ORDER BY id')
      expect(rows.map((row) => [row.status, Number(row.sent_at)])).toEqual([
        ['sent', 2],
        ['sent', 2],
      ])
    } finally {
      await store.close()
    }
  })

  it('keeps its claim while a send takes longer than the claim: no other replica sends the mail again', async () => {
    // A relay that holds every message until released: a send far longer than the claim.
    const smtp = await startSmtp({ hold: true })
    const store = await postgres()
    const [a, b] = store.stores as [OutboxStore, OutboxStore]
    // Replica b's polls, by the time each was made: it must poll well past a's first claim.
    const polls: number[] = []
    const watched: OutboxStore = {
      ...b,
      due: (now, limit) => {
        polls.push(now)
        return b.due(now, limit)
      },
    }
    const sender = (outbox: OutboxStore) =>
      new OutboxSender(
        outbox,
        smtpTransport(smtp.settings(), 'diag@example.com'),
        { notificationsSent: { inc: () => {} }, notificationsFailed: { inc: () => {} } },
        { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, pollMs: 50, batch: 4 },
        { info: () => {}, warn: () => {}, error: () => {} },
      )
    const senders = [sender(a), sender(watched)]
    try {
      await mails(store, 1)
      const [first, second] = senders as [OutboxSender, OutboxSender]
      first.start()
      await waitFor(() => smtp.arrived() === 1, 10_000, "replica a's send at the relay")
      const sendingSince = Date.now()
      second.start()
      await waitFor(
        () => polls.some((at) => at > sendingSince + 3 * claimMs),
        30_000,
        'replica b polling three claims later',
      )
      smtp.release()
      await waitFor(
        async () => Number((await store.sql("SELECT count(*) AS n FROM outbox WHERE status = 'sent'"))[0]?.n) === 1,
        30_000,
        'the mail recorded sent',
      )
      expect(smtp.arrived()).toBe(1)
      expect(smtp.mails).toHaveLength(1)
    } finally {
      smtp.release()
      for (const each of senders) await each.stop()
      await smtp.close()
      await store.close()
    }
  })
})
