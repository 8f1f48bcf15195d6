import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WorkQueue } from '../../src/queue/work-queue.js'
import type { IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { PgWorkQueue } from '../../src/store/postgres/work-queue.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import type { Lease } from '../../src/worker/ports.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// The work queue (D25) on both adapters: one suite (docs/design.md, "Storage").

interface Queue {
  claimMany(limit: number): Promise<Lease[]>
  renew(lease: Lease): Promise<boolean>
  complete(lease: Lease): Promise<boolean>
  retry(lease: Lease, delayMs: number, error: string): Promise<boolean>
  defer(lease: Lease, delayMs: number, reason: string): Promise<boolean>
  fail(lease: Lease, error: string): Promise<boolean>
  recoverExpired(): Promise<{ recovered: number; exhausted: number }>
}

interface Opened {
  /** One queue per replica, all on the same database, on a clock the test moves. */
  queues: Queue[]
  writer: IngestStore
  rows(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const clock = { now: 1_000_000 }
const options = { leaseMs: 1000, maxExpiries: 3, now: () => clock.now }

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-queue-conformance-')), 'q.db'))
  const queue = new WorkQueue(db, options)
  const async: Queue = {
    claimMany: async (limit) => queue.claimMany(limit),
    renew: async (lease) => queue.renew(lease),
    complete: async (lease) => queue.complete(lease),
    retry: async (lease, delayMs, error) => queue.retry(lease, delayMs, error),
    defer: async (lease, delayMs, reason) => queue.defer(lease, delayMs, reason),
    fail: async (lease, error) => queue.fail(lease, error),
    recoverExpired: async () => queue.recoverExpired(),
  }
  return {
    queues: [async, async, async],
    writer: new EventWriter(db, { queueCapacity: 1000, now: () => clock.now }),
    rows: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
    close: async () => {
      db.close()
    },
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database(3)
  return {
    queues: db.pools.map((pool) => new PgWorkQueue(pool, options)),
    writer: new PgEventWriter(db.pool, { queueCapacity: 1000, now: () => clock.now }),
    rows: db.rows,
    close: db.close,
  }
}

afterAll(() => server.stop())

const enqueue = async (store: Opened, count: number) => {
  const alerts = Array.from({ length: count }, (_, i) => alertEvent(`item-${i}`))
  await store.writer.submit({ receiver: 'r', groupKey: 'g', principal: 'p', alerts })
}
const statuses = async (store: Opened) =>
  (await store.rows('SELECT status, attempts, expiries FROM queue_items ORDER BY id')).map((row) => ({
    status: row.status,
    attempts: Number(row.attempts),
    expiries: Number(row.expiries),
  }))

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('work queue on %s', (_name, open) => {
  beforeAll(async () => {
    // Start the server once, outside the first test's time.
    if (open === postgres) await server.start()
  }, 120_000)

  it('claims the oldest due item once and changes it only with its own lease', async () => {
    clock.now = 1_000_000
    const store = await open()
    try {
      await enqueue(store, 2)
      const [a, b] = store.queues as [Queue, Queue]
      const [first] = await a.claimMany(1)
      const [second] = await b.claimMany(1)
      expect(await a.claimMany(5)).toEqual([])
      if (!first || !second) throw new Error('two claims expected')
      expect(first.itemId).toBeLessThan(second.itemId)
      expect(await a.complete({ ...first, token: 'forged' })).toBe(false)
      expect(await a.complete({ ...first, itemId: second.itemId })).toBe(false)
      expect(await a.renew(first)).toBe(true)
      expect(await a.complete(first)).toBe(true)
      expect(await a.complete(first)).toBe(false)
      expect(await b.defer(second, 500, 'waiting')).toBe(true)
      expect((await statuses(store)).map((row) => [row.status, row.attempts])).toEqual([
        ['done', 1],
        ['queued', 0],
      ])
    } finally {
      await store.close()
    }
  })

  it('recovers an expired lease on any replica 3 times, then fails it; the old holder is fenced off', async () => {
    clock.now = 2_000_000
    const store = await open()
    try {
      await enqueue(store, 1)
      const [a, b, c] = store.queues as [Queue, Queue, Queue]
      const [dead] = await a.claimMany(1)
      if (!dead) throw new Error('a claim expected')
      for (let expiry = 1; expiry <= 4; expiry++) {
        clock.now += 1001
        const recovered = await (expiry % 2 === 0 ? b : c).recoverExpired()
        if (expiry <= 3) {
          expect(recovered).toEqual({ recovered: 1, exhausted: 0 })
          const [again] = await b.claimMany(1)
          expect(again?.itemId).toBe(dead.itemId)
        } else {
          expect(recovered).toEqual({ recovered: 0, exhausted: 1 })
        }
      }
      // The replica that held the first lease comes back: its token no longer counts.
      expect(await a.complete(dead)).toBe(false)
      expect(await statuses(store)).toEqual([{ status: 'failed', attempts: 4, expiries: 4 }])
    } finally {
      await store.close()
    }
  })

  it('keeps the depth per status equal to the items through claims, retries, failures, recoveries and deletions', async () => {
    clock.now = 4_000_000
    const store = await open()
    const depthAgrees = async () => {
      const depth = await store.rows('SELECT status, sum(items) AS items FROM queue_depth GROUP BY status')
      const items = await store.rows('SELECT status, count(*) AS items FROM queue_items GROUP BY status')
      const of = (rows: Array<Record<string, unknown>>, status: string) =>
        Number(rows.find((row) => row.status === status)?.items ?? 0)
      for (const status of ['queued', 'processing', 'done', 'failed']) expect(of(depth, status)).toBe(of(items, status))
      return of(items, 'queued')
    }
    try {
      await enqueue(store, 40)
      expect(await depthAgrees()).toBe(40)
      // Every replica claims at once, and each lease ends its own way.
      await Promise.all(
        store.queues.map(async (queue, replica) => {
          for (const [i, lease] of (await queue.claimMany(6)).entries()) {
            if (i % 4 === 0) await queue.complete(lease)
            else if (i % 4 === 1) await queue.retry(lease, 0, 'again')
            else if (i % 4 === 2) await queue.fail(lease, 'for good')
            else if (replica === 0) await queue.defer(lease, 0, 'later')
          }
        }),
      )
      await depthAgrees()
      clock.now += 1001
      await store.queues[1]?.recoverExpired()
      await depthAgrees()
      await store.rows(
        "DELETE FROM events WHERE id IN (SELECT event_id FROM queue_items WHERE status <> 'queued') RETURNING id",
      )
      expect(await depthAgrees()).toBeGreaterThan(0)
    } finally {
      await store.close()
    }
  })

  it('hands every item to exactly one of the replicas claiming at once', async () => {
    clock.now = 3_000_000
    const store = await open()
    try {
      await enqueue(store, 60)
      const claimed: number[] = []
      await Promise.all(
        store.queues.map(async (queue) => {
          for (;;) {
            const leases = await queue.claimMany(2)
            if (leases.length === 0) return
            for (const lease of leases) {
              claimed.push(lease.itemId)
              expect(await queue.complete(lease)).toBe(true)
            }
          }
        }),
      )
      expect(claimed).toHaveLength(60)
      expect(new Set(claimed).size).toBe(60)
      expect((await statuses(store)).every((row) => row.status === 'done' && row.attempts === 1)).toBe(true)
    } finally {
      await store.close()
    }
  })
})
