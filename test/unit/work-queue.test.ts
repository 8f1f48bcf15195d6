import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { WorkQueue } from '../../src/queue/work-queue.js'
import { type Db, openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import type { Lease } from '../../src/worker/ports.js'
import { alertEvent } from '../helpers/events.js'

describe('WorkQueue (D25)', () => {
  let db: Db
  let now: number
  let queue: WorkQueue
  beforeEach(async () => {
    db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-queue-')), 'q.db'))
    now = 1_000_000
    queue = new WorkQueue(db, { leaseMs: 1000, maxExpiries: 3, now: () => now })
    const writer = new EventWriter(db, { queueCapacity: 100, now: () => now })
    const event = (identity: string) => alertEvent(identity)
    await writer.submit({ receiver: 'r', groupKey: 'g', principal: 'p', alerts: [event('first'), event('second')] })
  })
  const status = () => db.prepare('SELECT status, attempts, expiries FROM queue_items ORDER BY id').all()
  /** One claim of one item, as the worker's chunks take them. */
  const claim = (): Lease | null => queue.claimMany(1)[0] ?? null

  it('claims several items in one statement, oldest first, each changed only with its own item id', () => {
    const [first, second, ...none] = queue.claimMany(5)
    expect([first?.itemId, second?.itemId, none]).toEqual([1, 2, []])
    expect(queue.claimMany(5)).toEqual([])
    // They share the claim's token, so the item id is what keeps one lease from the other.
    expect(queue.complete({ ...(first as NonNullable<typeof first>), itemId: 3 })).toBe(false)
    expect(queue.complete(first as NonNullable<typeof first>)).toBe(true)
    expect(status().map((row) => (row as { status: string }).status)).toEqual(['done', 'processing'])
  })

  it('claims the oldest item once, and changes it only with its lease token', () => {
    const lease = claim()
    expect(lease).toMatchObject({ itemId: 1, attempts: 1 })
    const second = claim()
    expect(second?.itemId).toBe(2)
    expect(claim()).toBeNull()
    expect(queue.complete({ ...(lease as NonNullable<typeof lease>), token: 'forged' })).toBe(false)
    expect(queue.renew(lease as NonNullable<typeof lease>)).toBe(true)
    expect(queue.complete(lease as NonNullable<typeof lease>)).toBe(true)
    expect(queue.complete(lease as NonNullable<typeof lease>)).toBe(false)
    expect(status()[0]).toMatchObject({ status: 'done', attempts: 1 })
  })

  it('re-queues an expired lease 3 times, then fails the item on the 4th expiry', () => {
    claim() // item 1: its worker dies and never renews
    const keep = claim()
    for (let expiry = 1; expiry <= 4; expiry++) {
      now += 1001
      if (keep) queue.renew(keep) // item 2's worker is alive and renews
      const outcome = queue.recoverExpired()
      if (expiry <= 3) {
        expect(outcome).toEqual({ recovered: 1, exhausted: 0 })
        expect(status()[0]).toMatchObject({ status: 'queued', expiries: expiry })
        expect(claim()?.itemId).toBe(1)
      } else {
        expect(outcome).toEqual({ recovered: 0, exhausted: 1 })
        expect(status()[0]).toMatchObject({ status: 'failed', expiries: 4 })
      }
    }
    expect(status()[1]).toMatchObject({ status: 'processing', expiries: 0 })
  })

  it('locks out a worker whose lease expired and was taken over', () => {
    const stale = claim() as Lease
    claim()
    now += 1001
    queue.recoverExpired()
    const fresh = claim() as Lease
    expect(fresh.itemId).toBe(stale.itemId)
    expect(queue.renew(stale)).toBe(false)
    expect(queue.complete(stale)).toBe(false)
    expect(queue.complete(fresh)).toBe(true)
  })

  it('retries after a processing error with a delay, and fails for good on request', () => {
    const lease = claim() as Lease
    expect(queue.retry(lease, 5000, 'boom')).toBe(true)
    expect(claim()?.itemId).toBe(2) // item 1 is not due yet
    now += 5000
    const again = claim() as Lease
    expect(again).toMatchObject({ itemId: 1, attempts: 2 })
    expect(queue.fail(again, 'still broken')).toBe(true)
    expect(status()[0]).toMatchObject({ status: 'failed', attempts: 2 })
    expect(queue.depth()).toMatchObject({ queued: 0, processing: 1, failed: 1 })
  })
})
