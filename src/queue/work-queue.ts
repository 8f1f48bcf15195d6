import { randomUUID } from 'node:crypto'
import { numbered, sqliteNumbered } from '../store/sql-parameters.js'
import type { Db } from '../store/sqlite/database.js'
import type { Lease } from '../worker/ports.js'
import { claimSql, queueSql } from './queue-sql.js'

export interface QueueOptions {
  /** How long a claim holds before another worker may take the item over. */
  leaseMs: number
  /** Expired leases re-queued before the item is failed for good (D25: 3). */
  maxExpiries: number
  now?: () => number
}

/** What the expiry statement returned, as the worker counts it (D25). */
export function countExpired(rows: ReadonlyArray<{ status: string }>): { recovered: number; exhausted: number } {
  const exhausted = rows.filter((row) => row.status === 'failed').length
  return { recovered: rows.length - exhausted, exhausted }
}

/**
 * The durable work queue of events (D25) on SQLite. A worker claims the oldest due item
 * with one `UPDATE … RETURNING` that sets a fresh lease token (src/queue/queue-sql.ts).
 */
export class WorkQueue {
  private readonly statements

  constructor(
    db: Db,
    private readonly options: QueueOptions,
  ) {
    this.statements = {
      claim: db.prepare<
        [Record<number, unknown>],
        { id: number; event_id: string; attempts: number; available_at: number }
      >(sqliteNumbered(claimSql(''))),
      renew: db.prepare(sqliteNumbered(queueSql.renew)),
      finish: db.prepare(sqliteNumbered(queueSql.finish)),
      defer: db.prepare(sqliteNumbered(queueSql.defer)),
      expire: db.prepare<[Record<number, unknown>], { status: string }>(sqliteNumbered(queueSql.expire)),
      depth: db.prepare<[], { status: string; items: number }>('SELECT status, items FROM queue_depth'),
    }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  /**
   * Claims up to `limit` due items, oldest first, in one statement (one commit). They share
   * a lease token: every later change also names the item, so the compare-and-swap holds.
   */
  claimMany(limit: number): Lease[] {
    const now = this.now()
    const token = randomUUID()
    return this.statements.claim
      .all(numbered(token, now + this.options.leaseMs, now, limit))
      .sort((a, b) => a.available_at - b.available_at || a.id - b.id)
      .map((row) => ({ itemId: row.id, eventId: row.event_id, token, attempts: row.attempts }))
  }

  /** Extends the lease; false when it was lost (expired and taken over). */
  renew(lease: Lease): boolean {
    const now = this.now()
    return this.statements.renew.run(numbered(now + this.options.leaseMs, now, lease.itemId, lease.token)).changes === 1
  }

  complete(lease: Lease): boolean {
    return this.finish(lease, 'done', null, this.now())
  }

  /** Back to the queue after a processing error, due again after `delayMs`. */
  retry(lease: Lease, delayMs: number, error: string): boolean {
    return this.finish(lease, 'queued', error, this.now() + delayMs)
  }

  /** Back to the queue, due after `delayMs`, the claim not counted as an attempt. */
  defer(lease: Lease, delayMs: number, reason: string): boolean {
    const now = this.now()
    return this.statements.defer.run(numbered(reason, now + delayMs, now, lease.itemId, lease.token)).changes === 1
  }

  fail(lease: Lease, error: string): boolean {
    return this.finish(lease, 'failed', error, this.now())
  }

  private finish(lease: Lease, status: string, error: string | null, availableAt: number): boolean {
    const now = this.now()
    return (
      this.statements.finish.run(
        numbered(status, error?.slice(0, 1000) ?? null, availableAt, now, lease.itemId, lease.token),
      ).changes === 1
    )
  }

  /**
   * Re-queues items whose lease expired (a worker crashed or hung), or fails them for good
   * once they have expired more than `maxExpiries` times. One transaction.
   */
  recoverExpired(): { recovered: number; exhausted: number } {
    return countExpired(this.statements.expire.all(numbered(this.now(), this.options.maxExpiries)))
  }

  depth(): Record<string, number> {
    return Object.fromEntries(this.statements.depth.all().map((row) => [row.status, row.items]))
  }
}
