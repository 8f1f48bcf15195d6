import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AlertEventInput, IngestOutcome, IngestRequest, IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
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
