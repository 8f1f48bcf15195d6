import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StoreError } from '../../src/errors.js'
import { isHostFault } from '../../src/host-faults.js'
import type { AlertEventInput, IngestOutcome, IngestRequest, IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { createPool } from '../../src/store/postgres/pool.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// One suite, both storage adapters (docs/design.md, "Storage"): what the webhook's storage
// promises holds on SQLite and on PostgreSQL alike.

interface Adapter {
  /** A store on an empty database; `replicas` writers share it (PostgreSQL: one pool each). */
  open(options: { queueCapacity?: number; replicas?: number }): Promise<{
    writers: IngestStore[]
    rows(sql: string): Promise<Array<Record<string, unknown>>>
    close(): Promise<void>
  }>
}

const sqlite: Adapter = {
  async open({ queueCapacity = 1000, replicas = 1 }) {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-conformance-')), 'store.db'))
    // One process owns a SQLite file: "replicas" are writers on its one connection.
    const writers = Array.from({ length: replicas }, () => new EventWriter(db, { queueCapacity }))
    return {
      writers,
      rows: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
      close: async () => {
        db.close()
      },
    }
  },
}

const server = postgresForFile()
const postgres: Adapter = {
  async open({ queueCapacity = 1000, replicas = 1 }) {
    const db = await server.database(replicas)
    return {
      writers: db.pools.map((pool) => new PgEventWriter(pool, { queueCapacity })),
      rows: db.rows,
      close: db.close,
    }
  },
}

const request = (...alerts: AlertEventInput[]): IngestRequest => ({
  receiver: 'r',
  groupKey: '{}:{db_password="gr0up"}',
  principal: 'test',
  alerts,
})
const accepted = (outcome: IngestOutcome) => {
  if (outcome.kind !== 'accepted') throw new Error(`expected accepted, got ${outcome.kind}`)
  return outcome
}
const count = async (store: { rows(sql: string): Promise<Array<Record<string, unknown>>> }, sql: string) =>
  Number(Object.values((await store.rows(sql))[0] as object)[0])

afterAll(() => server.stop())

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('ingest on %s', (_name, adapter) => {
  beforeAll(async () => {
    // Start the server once, outside the first test's time.
    if (adapter === postgres) await server.start()
  }, 120_000)

  it('stores a firing once: its repeat is a duplicate of the same event and incident', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      const first = accepted(await writer.submit(request(alertEvent('a1'))))
      const again = accepted(await writer.submit(request(alertEvent('a1'))))
      expect(first).toMatchObject({ received: 1, queued: 1, duplicates: 0 })
      expect(first.events[0]).toMatchObject({ duplicate: false, transition: 'opened' })
      expect(again.events[0]).toMatchObject({
        duplicate: true,
        transition: 'duplicate',
        eventId: first.events[0]?.eventId,
        incidentId: first.events[0]?.incidentId,
      })
      expect(await count(store, 'SELECT count(*) FROM events')).toBe(1)
      expect(await count(store, 'SELECT count(*) FROM incidents')).toBe(1)
      expect(await count(store, "SELECT count(*) FROM queue_items WHERE status = 'queued'")).toBe(1)
    } finally {
      await store.close()
    }
  })

  it('follows the lifecycle: a resolution resolves, queues its recovery after the diagnosis', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      const fired = accepted(await writer.submit(request(alertEvent('b1'))))
      const ended = accepted(
        await writer.submit(
          request(alertEvent('b1', { status: 'resolved', endsAt: Date.parse('2026-11-22T05:10:00Z') })),
        ),
      )
      expect(ended.events[0]).toMatchObject({ transition: 'resolved', incidentId: fired.events[0]?.incidentId })
      const [incident] = await store.rows('SELECT status, ended_at FROM incidents')
      expect(incident).toEqual({ status: 'resolved', ended_at: Date.parse('2026-11-22T05:10:00Z') })
      const [event] = await store.rows("SELECT after_event_id FROM events WHERE status = 'resolved'")
      expect(event?.after_event_id).toBe(fired.events[0]?.eventId)
    } finally {
      await store.close()
    }
  })

  it('refuses a request when the queue is full, storing nothing of it', async () => {
    const store = await adapter.open({ queueCapacity: 1 })
    try {
      const [writer] = store.writers as [IngestStore]
      accepted(await writer.submit(request(alertEvent('c1'))))
      expect(await writer.submit(request(alertEvent('c2')))).toEqual({ kind: 'queue_full' })
      expect(await count(store, 'SELECT count(*) FROM events')).toBe(1)
      expect(await count(store, 'SELECT count(*) FROM incidents')).toBe(1)
    } finally {
      await store.close()
    }
  })

  it('does not let a start from a clock far ahead order the alert', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      const future = Date.now() + 365 * 86_400_000
      const real = Date.now() - 60_000
      const bogus = accepted(await writer.submit(request(alertEvent('d1', { startsAt: future }))))
      const fired = accepted(await writer.submit(request(alertEvent('d1', { startsAt: real }))))
      expect(fired.events[0]).toMatchObject({ transition: 'opened', superseded: bogus.events[0]?.incidentId })
      const rows = await store.rows('SELECT status, start_believed FROM incidents ORDER BY opened_at, id')
      expect(rows.map((r) => [r.status, Number(r.start_believed)]).sort()).toEqual([
        ['open', 1],
        ['superseded', 0],
      ])
    } finally {
      await store.close()
    }
  })

  it('stores labels, annotations and the group key redacted', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      const leaky = alertEvent('e1', {
        alert: { labels: { alertname: 'A', db_password: 'pl41n' }, annotations: { d: 'password=hunter2' } },
      })
      accepted(await writer.submit(request(leaky)))
      const [row] = await store.rows('SELECT alert, group_key FROM events')
      expect(JSON.stringify(row)).not.toMatch(/pl41n|hunter2|gr0up/)
    } finally {
      await store.close()
    }
  })

  it('stores an alert whose label values hold a NUL character, with the others sent at the same time', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      const labels = { alertname: 'Nul\u0000Alert', instance: 'app-\u0000-01' }
      const nul = alertEvent('nul', { alertname: labels.alertname, instance: labels.instance, alert: { labels } })
      const others = Array.from({ length: 5 }, (_, i) => alertEvent(`beside-nul-${i}`))
      const outcomes = await Promise.all([nul, ...others].map((alert) => writer.submit(request(alert))))
      expect(outcomes.map((o) => accepted(o).queued)).toEqual([1, 1, 1, 1, 1, 1])
      const [row] = await store.rows("SELECT alert FROM events WHERE identity = 'nul'")
      expect(JSON.parse(String(row?.alert)).labels).toEqual(labels)
      expect(await count(store, 'SELECT count(*) FROM events')).toBe(6)
    } finally {
      await store.close()
    }
  })

  it('fails only the request the database refuses; the ones sent with it are stored', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      // Past the schema, as no webhook can be: the events table's CHECK refuses it.
      const refused = alertEvent('refused', { status: 'bogus' as 'firing' })
      const others = Array.from({ length: 5 }, (_, i) => alertEvent(`beside-refused-${i}`))
      const outcomes = await Promise.allSettled([refused, ...others].map((alert) => writer.submit(request(alert))))
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', ...others.map(() => 'fulfilled')])
      expect(await count(store, 'SELECT count(*) FROM events')).toBe(5)
      expect(await count(store, "SELECT count(*) FROM events WHERE identity = 'refused'")).toBe(0)
    } finally {
      await store.close()
    }
  })

  it('stores values with quotes, backslashes and dollar signs as they were sent', async () => {
    const store = await adapter.open({})
    try {
      const [writer] = store.writers as [IngestStore]
      const awkward = "it's \\ $1 $$ E'\\x27' -- ;COMMIT; \u2028"
      const labels = { alertname: awkward, instance: awkward }
      accepted(
        await writer.submit(
          request(alertEvent('awkward', { alertname: awkward, instance: awkward, alert: { labels } })),
        ),
      )
      const [row] = await store.rows("SELECT alertname, instance, alert FROM events WHERE identity = 'awkward'")
      expect(row).toMatchObject({ alertname: awkward, instance: awkward })
      expect(JSON.parse(String(row?.alert)).labels).toEqual(labels)
    } finally {
      await store.close()
    }
  })

  it('files one notification sent to every replica at once as one event and one incident', async () => {
    const store = await adapter.open({ replicas: 3 })
    try {
      const alerts = Array.from({ length: 20 }, (_, i) => alertEvent(`f${i}`))
      // Each replica gets every alert, all at once, as an Alertmanager HA pair and a load
      // balancer deliver them.
      const outcomes = await Promise.all(
        store.writers.flatMap((writer) => alerts.map((alert) => writer.submit(request(alert)))),
      )
      const events = outcomes.flatMap((o) => accepted(o).events)
      expect(events.filter((e) => !e.duplicate)).toHaveLength(20)
      expect(new Set(events.map((e) => e.incidentId)).size).toBe(20)
      expect(await count(store, 'SELECT count(*) FROM events')).toBe(20)
      expect(await count(store, 'SELECT count(*) FROM incidents')).toBe(20)
      expect(await count(store, 'SELECT count(*) FROM queue_items')).toBe(20)
    } finally {
      await store.close()
    }
  })
})

describe('ingest on PostgreSQL in batches', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('commits requests that arrive together in fewer transactions than requests', async () => {
    const db = await server.database(1)
    try {
      let transactions = 0
      db.pool.on('acquire', () => transactions++)
      const writer = new PgEventWriter(db.pool, { queueCapacity: 1000 })
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, i) => writer.submit(request(alertEvent(`together-${i}`)))),
      )
      expect(outcomes.every((o) => accepted(o).queued === 1)).toBe(true)
      expect(Number((await db.rows('SELECT count(*) AS n FROM events'))[0]?.n)).toBe(40)
      // Two write batches start at once; the other 38 requests wait for them.
      expect(transactions).toBeLessThanOrEqual(10)
    } finally {
      await db.close()
    }
  })
})

describe('ingest on PostgreSQL when the database pushes back', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('runs a transaction again after a serialization failure: every notification stored once, none twice', async () => {
    const db = await server.database(2)
    try {
      // SERIALIZABLE everywhere: concurrent ingest now meets 40001 and must retry it.
      await db.pool.query(
        `ALTER DATABASE ${pg.escapeIdentifier(new URL(db.url).pathname.slice(1))} SET default_transaction_isolation TO 'serializable'`,
      )
      const retries: string[] = []
      const writers = db.pools.map(
        (pool) =>
          new PgEventWriter(pool, { queueCapacity: 10_000, retries: { inc: ({ code }) => void retries.push(code) } }),
      )
      for (const pool of db.pools) await pool.query('SELECT 1') // connections made after the change
      const alerts = Array.from({ length: 40 }, (_, i) =>
        alertEvent(`serial-${i % 20}`, { startsAt: Date.parse('2026-11-22T05:00:00Z') + (i < 20 ? 0 : 1000) }),
      )
      // What a transaction that lost five times in a row meets is a 503 to Alertmanager,
      // which sends again: the same here, sequentially, until accepted.
      const outcomes = await Promise.allSettled(
        writers.flatMap((writer) => alerts.map((alert) => writer.submit(request(alert)))),
      )
      for (const [i, outcome] of outcomes.entries()) {
        if (outcome.status === 'fulfilled') continue
        expect(outcome.reason).toBeInstanceOf(StoreError)
        expect((outcome.reason as { cause?: { code?: string } }).cause?.code).toBe('40001')
        const writer = writers[Math.floor(i / alerts.length)] as PgEventWriter
        await writer.submit(request(alerts[i % alerts.length] as AlertEventInput))
      }
      expect(retries.length).toBeGreaterThan(0)
      expect(retries.every((code) => ['40001', '40P01', '23505'].includes(code))).toBe(true)
      // 20 alerts, each with two starts: the later start supersedes the earlier, once.
      expect(Number((await db.rows('SELECT count(*) AS n FROM events'))[0]?.n)).toBe(40)
      expect(Number((await db.rows("SELECT count(*) AS n FROM incidents WHERE status = 'open'"))[0]?.n)).toBe(20)
    } finally {
      await db.close()
    }
  })

  it('fails a request in bounded time, as a fault of the host, when the pool is exhausted', async () => {
    const db = await server.database()
    const tight = createPool(db.url, { timeoutMs: 300, max: 1 })
    const held = await tight.connect()
    try {
      const writer = new PgEventWriter(tight, { queueCapacity: 100 })
      const error = await writer.submit(request(alertEvent('exhausted'))).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreError)
      expect(isHostFault(error)).toBe(true)
      held.release()
      // The connection back in the pool, the same request is stored.
      expect(await writer.submit(request(alertEvent('exhausted')))).toMatchObject({ kind: 'accepted', queued: 1 })
      // A repeat of it is read before any transaction: that read fails the same way.
      const again = await tight.connect()
      const repeatError = await writer.submit(request(alertEvent('exhausted'))).catch((e: unknown) => e)
      expect(repeatError).toBeInstanceOf(StoreError)
      expect(isHostFault(repeatError)).toBe(true)
      again.release()
      expect(await writer.submit(request(alertEvent('exhausted')))).toMatchObject({ kind: 'accepted', duplicates: 1 })
    } finally {
      await tight.end()
      await db.close()
    }
  })

  it('turns a connection ended by the server (57P01) into a fault of the host, and goes on', async () => {
    const db = await server.database()
    try {
      const writer = new PgEventWriter(db.pool, { queueCapacity: 100 })
      expect(await writer.submit(request(alertEvent('terminated-1')))).toMatchObject({ kind: 'accepted' })
      // An administrator's shutdown of every connection of this database but the one asking.
      const admin = createPool(db.url, { timeoutMs: 5000, max: 1 })
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )
      await admin.end()
      const error = await writer.submit(request(alertEvent('terminated-2'))).catch((e: unknown) => e)
      if (error instanceof Error) expect(isHostFault(error)).toBe(true)
      // Whatever the first request met, the next one is stored: the pool replaced its connections.
      expect(await writer.submit(request(alertEvent('terminated-3')))).toMatchObject({ kind: 'accepted' })
    } finally {
      await db.close()
    }
  })
})
