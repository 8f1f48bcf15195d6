import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { uuidv7 } from '../../src/store/ids.js'
import { type Db, openDatabase } from '../../src/store/sqlite/database.js'
import { type AlertEventInput, EventWriter, type IngestRequest } from '../../src/store/sqlite/event-writer.js'
import { runMigrations } from '../../src/store/sqlite/migrate.js'
import { alertEvent } from '../helpers/events.js'

const event = alertEvent

const request = (...alerts: AlertEventInput[]): IngestRequest => ({
  receiver: 'r',
  groupKey: 'g',
  principal: 'test',
  alerts,
})

describe('store', () => {
  let db: Db
  beforeEach(() => {
    db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-store-')), 'test.db'))
  })
  afterEach(() => db.close())
  const depth = () =>
    Object.fromEntries(
      (db.prepare('SELECT status, items FROM queue_depth').all() as Array<{ status: string; items: number }>).map(
        (row) => [row.status, row.items],
      ),
    )

  it('opens with WAL, synchronous=NORMAL (synced by WalSync) and foreign keys, and applies migrations once', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('synchronous', { simple: true })).toBe(1) // NORMAL: test/unit/wal-sync.test.ts
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(db.pragma('temp_store', { simple: true })).toBe(2) // MEMORY: savepoint journals not spilled to files
    expect(runMigrations(db)).toEqual([])
    expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ])
  })

  it('keeps queue_depth equal to the real counts through inserts, status changes and deletes', () => {
    const writer = new EventWriter(db, { queueCapacity: 100 })
    writer.submit(request(event('a'), event('b'), event('c')))
    writer.flush()
    expect(depth()).toMatchObject({ queued: 3, processing: 0 })
    db.prepare(
      "UPDATE queue_items SET status = 'processing' WHERE event_id = (SELECT id FROM events WHERE identity = 'a')",
    ).run()
    db.prepare("UPDATE queue_items SET status = 'processing' WHERE status = 'processing'").run() // no change
    expect(depth()).toMatchObject({ queued: 2, processing: 1 })
    db.prepare("DELETE FROM events WHERE identity = 'b'").run() // cascades to the queue item
    expect(depth()).toMatchObject({ queued: 1, processing: 1 })
    const real = db.prepare("SELECT count(*) FROM queue_items WHERE status = 'queued'").pluck().get()
    expect(depth().queued).toBe(real)
  })

  it('commits concurrent requests together, each with its own outcome', async () => {
    const writer = new EventWriter(db, { queueCapacity: 100 })
    const outcomes = await Promise.all([
      writer.submit(request(event('x1'))),
      writer.submit(request(event('x2'), event('x1'))),
      writer.submit(request(event('x1'))),
    ])
    expect(outcomes.map((o) => (o.kind === 'accepted' ? [o.queued, o.duplicates] : o.kind))).toEqual([
      [1, 0],
      [1, 1],
      [0, 1],
    ])
    expect(db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(2)
  })

  it('loses only the failing request of a batch (one savepoint per request)', async () => {
    const writer = new EventWriter(db, { queueCapacity: 100 })
    const circular: { labels: Record<string, string>; self?: unknown } = { labels: {} }
    circular.self = circular // JSON.stringify throws inside the transaction
    const results = await Promise.allSettled([
      writer.submit(request(event('ok1'))),
      writer.submit(request(event('bad1'), event('bad2', { alert: circular }))),
      writer.submit(request(event('ok2'))),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason.name).toBe('StoreError')
    expect(db.prepare('SELECT identity FROM events ORDER BY identity').pluck().all()).toEqual(['ok1', 'ok2'])
    expect(db.prepare('SELECT count(*) FROM incidents').pluck().get()).toBe(2)
    expect(depth().queued).toBe(2)
  })

  it('answers a request of known duplicates without a write', async () => {
    const writer = new EventWriter(db, { queueCapacity: 1 })
    await writer.submit(request(event('d1')))
    const changes = db.prepare('SELECT total_changes()').pluck()
    const before = changes.get()
    // The queue is full, but duplicates add nothing to it: still accepted.
    const outcome = await writer.submit(request(event('d1')))
    expect(outcome).toMatchObject({ kind: 'accepted', queued: 0, duplicates: 1 })
    expect(changes.get()).toBe(before)
    expect(await writer.submit(request(event('d2')))).toEqual({ kind: 'queue_full' })
  })

  it('makes time-ordered version-7 UUIDs', () => {
    const a = uuidv7(Date.parse('2026-11-22T05:00:00.000Z'))
    const b = uuidv7(Date.parse('2026-11-22T05:00:00.001Z'))
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(a < b).toBe(true)
    expect(a.slice(0, 13)).toBe('01a201a0-1c80') // 1795323600000 ms in hex
    expect(uuidv7()).not.toBe(uuidv7())
  })
})
