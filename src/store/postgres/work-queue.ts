import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { claimSql, queueSql } from '../../queue/queue-sql.js'
import { countExpired, type QueueOptions } from '../../queue/work-queue.js'
import type { Lease } from '../../worker/ports.js'

type ClaimRow = { id: number; event_id: string; attempts: number; available_at: number }

/**
 * The work queue (D25) on PostgreSQL, shared by every replica: the same statements as on
 * SQLite (src/queue/queue-sql.ts), the claim with `FOR UPDATE SKIP LOCKED`, so replicas
 * claiming at once take different items and never wait for each other. The lease token is
 * the fencing token: a replica whose lease expired and was recovered by another can no
 * longer complete, renew or fail the item. Any live replica recovers expired leases.
 */
export class PgWorkQueue {
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: QueueOptions,
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  async claimMany(limit: number): Promise<Lease[]> {
    const now = this.now()
    const token = randomUUID()
    const { rows } = await this.pool.query<ClaimRow>(claimSql('FOR UPDATE SKIP LOCKED'), [
      token,
      now + this.options.leaseMs,
      now,
      limit,
    ])
    return rows
      .sort((a, b) => a.available_at - b.available_at || a.id - b.id)
      .map((row) => ({ itemId: row.id, eventId: row.event_id, token, attempts: row.attempts }))
  }

  async renew(lease: Lease): Promise<boolean> {
    const now = this.now()
    const result = await this.pool.query(queueSql.renew, [now + this.options.leaseMs, now, lease.itemId, lease.token])
    return result.rowCount === 1
  }

  complete(lease: Lease): Promise<boolean> {
    return this.finish(lease, 'done', null, this.now())
  }

  retry(lease: Lease, delayMs: number, error: string): Promise<boolean> {
    return this.finish(lease, 'queued', error, this.now() + delayMs)
  }

  async defer(lease: Lease, delayMs: number, reason: string): Promise<boolean> {
    const now = this.now()
    const result = await this.pool.query(queueSql.defer, [reason, now + delayMs, now, lease.itemId, lease.token])
    return result.rowCount === 1
  }

  fail(lease: Lease, error: string): Promise<boolean> {
    return this.finish(lease, 'failed', error, this.now())
  }

  private async finish(lease: Lease, status: string, error: string | null, availableAt: number): Promise<boolean> {
    const now = this.now()
    const result = await this.pool.query(queueSql.finish, [
      status,
      error?.slice(0, 1000) ?? null,
      availableAt,
      now,
      lease.itemId,
      lease.token,
    ])
    return result.rowCount === 1
  }

  async recoverExpired(): Promise<{ recovered: number; exhausted: number }> {
    const { rows } = await this.pool.query<{ status: string }>(queueSql.expire, [this.now(), this.options.maxExpiries])
    return countExpired(rows)
  }

  /** The cluster's queue by status. */
  async depth(): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ status: string; items: number }>(
      'SELECT status, count(*)::int AS items FROM queue_items GROUP BY status',
    )
    return Object.fromEntries(rows.map((row) => [row.status, row.items]))
  }
}
