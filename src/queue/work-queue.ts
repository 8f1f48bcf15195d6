import { randomUUID } from 'node:crypto'
import type { Db } from '../store/database.js'
import type { Lease } from '../worker/ports.js'

export interface QueueOptions {
  /** How long a claim holds before another worker may take the item over. */
  leaseMs: number
  /** Expired leases re-queued before the item is failed for good (D25: 3). */
  maxExpiries: number
  now?: () => number
}

/**
 * The durable work queue of events (D25). A worker claims the oldest due item with one
 * `UPDATE … RETURNING` that sets a fresh lease token; every later change compares that
 * token (compare-and-swap), so a worker whose lease expired and was taken over can no
 * longer complete, renew or fail the item.
 */
export class WorkQueue {
  private readonly statements

  constructor(
    private readonly db: Db,
    private readonly options: QueueOptions,
  ) {
    this.statements = {
      claim: db.prepare<
        [string, number, number, number, number],
        { id: number; event_id: string; attempts: number; available_at: number }
      >(`
        UPDATE queue_items
           SET status = 'processing', lease_token = ?, locked_until = ?, attempts = attempts + 1, updated_at = ?
         WHERE id IN (SELECT id FROM queue_items WHERE status = 'queued' AND available_at <= ? ORDER BY available_at, id LIMIT ?)
        RETURNING id, event_id, attempts, available_at`),
      renew: db.prepare(
        "UPDATE queue_items SET locked_until = ?, updated_at = ? WHERE id = ? AND lease_token = ? AND status = 'processing'",
      ),
      finish: db.prepare(`UPDATE queue_items SET status = ?, lease_token = NULL, locked_until = NULL, last_error = ?,
        available_at = ?, updated_at = ? WHERE id = ? AND lease_token = ? AND status = 'processing'`),
      defer: db.prepare(`UPDATE queue_items SET status = 'queued', attempts = attempts - 1, lease_token = NULL,
        locked_until = NULL, last_error = ?, available_at = ?, updated_at = ?
        WHERE id = ? AND lease_token = ? AND status = 'processing'`),
      expired: db.prepare<[number], { id: number; expiries: number }>(
        "SELECT id, expiries FROM queue_items WHERE status = 'processing' AND locked_until < ?",
      ),
      expire:
        db.prepare(`UPDATE queue_items SET status = ?, expiries = expiries + 1, lease_token = NULL, locked_until = NULL,
        last_error = 'lease expired', available_at = ?, updated_at = ? WHERE id = ? AND status = 'processing' AND locked_until < ?`),
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
      .all(token, now + this.options.leaseMs, now, now, limit)
      .sort((a, b) => a.available_at - b.available_at || a.id - b.id)
      .map((row) => ({ itemId: row.id, eventId: row.event_id, token, attempts: row.attempts }))
  }

  /** Extends the lease; false when it was lost (expired and taken over). */
  renew(lease: Lease): boolean {
    const now = this.now()
    return this.statements.renew.run(now + this.options.leaseMs, now, lease.itemId, lease.token).changes === 1
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
    return this.statements.defer.run(reason, now + delayMs, now, lease.itemId, lease.token).changes === 1
  }

  fail(lease: Lease, error: string): boolean {
    return this.finish(lease, 'failed', error, this.now())
  }

  private finish(lease: Lease, status: string, error: string | null, availableAt: number): boolean {
    const now = this.now()
    return (
      this.statements.finish.run(status, error?.slice(0, 1000) ?? null, availableAt, now, lease.itemId, lease.token)
        .changes === 1
    )
  }

  /**
   * Re-queues items whose lease expired (a worker crashed or hung), or fails them for good
   * once they have expired more than `maxExpiries` times. One transaction.
   */
  recoverExpired(): { recovered: number; exhausted: number } {
    const now = this.now()
    return this.db
      .transaction(() => {
        let recovered = 0
        let exhausted = 0
        for (const { id, expiries } of this.statements.expired.all(now)) {
          const giveUp = expiries + 1 > this.options.maxExpiries
          if (this.statements.expire.run(giveUp ? 'failed' : 'queued', now, now, id, now).changes === 1) {
            if (giveUp) exhausted++
            else recovered++
          }
        }
        return { recovered, exhausted }
      })
      .immediate()
  }

  depth(): Record<string, number> {
    return Object.fromEntries(this.statements.depth.all().map((row) => [row.status, row.items]))
  }
}
