import type pg from 'pg'
import { DuplicateTally, type Sender, upsertDuplicatesSql } from '../duplicate-tally.js'

/**
 * When each occurrence was last heard, duplicates included, on PostgreSQL (the SQLite
 * adapter's store/sqlite/heard-occurrences.ts, docs/design.md "Incidents"): kept in memory and
 * written now and then in one statement for all, never one write per duplicate. Every
 * replica writes what it heard; `greatest` keeps the latest whichever writes last.
 */
export class PgHeardOccurrences {
  private readonly pending = new Map<string, number>()
  /** A hearing by a sender is a duplicate absorbed, for the incident's timeline (store/duplicate-tally.ts). */
  private readonly duplicates = new DuplicateTally()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly pool: pg.Pool) {}

  heard(incidentId: string, at: number, sender?: Sender): void {
    this.pending.set(incidentId, at)
    if (sender) this.duplicates.count(incidentId, sender, at)
  }

  /** Writes what was heard since the last write; kept for the next one if it fails. */
  async write(client: Pick<pg.PoolClient, 'query'> = this.pool): Promise<void> {
    if (this.pending.size === 0 && this.duplicates.size === 0) return
    const entries = [...this.pending]
    const counts = this.duplicates.take()
    this.pending.clear()
    try {
      await client.query(
        `UPDATE incidents i SET last_heard_at = greatest(coalesce(i.last_heard_at, 0), h.at)
         FROM unnest($1::text[], $2::bigint[]) AS h(id, at) WHERE i.id = h.id`,
        [entries.map(([id]) => id), entries.map(([, at]) => at)],
      )
      if (counts.length > 0) await client.query(upsertDuplicatesSql(duplicatesSource), duplicateColumns(counts))
    } catch (error) {
      for (const [id, at] of entries) if (!this.pending.has(id)) this.pending.set(id, at)
      this.duplicates.restore(counts)
      throw error
    }
  }

  start(everyMs: number, onError: (error: unknown) => void): void {
    this.timer = setInterval(() => {
      this.write().catch(onError)
    }, everyMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }
}

const duplicatesSource = `unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[])
  AS h(incident_id, principal, receiver, duplicates, first_at, last_at)`

const duplicateColumns = (counts: ReturnType<DuplicateTally['take']>) => [
  counts.map((c) => c.incidentId),
  counts.map((c) => c.principal),
  counts.map((c) => c.receiver),
  counts.map((c) => c.duplicates),
  counts.map((c) => c.firstAt),
  counts.map((c) => c.lastAt),
]
