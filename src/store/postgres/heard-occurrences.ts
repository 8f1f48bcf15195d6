import type pg from 'pg'

/**
 * When each occurrence was last heard, duplicates included, on PostgreSQL (the SQLite
 * adapter's store/sqlite/heard-occurrences.ts, docs/design.md "Incidents"): kept in memory and
 * written now and then in one statement for all, never one write per duplicate. Every
 * replica writes what it heard; `greatest` keeps the latest whichever writes last.
 */
export class PgHeardOccurrences {
  private readonly pending = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly pool: pg.Pool) {}

  heard(incidentId: string, at: number): void {
    this.pending.set(incidentId, at)
  }

  /** Writes what was heard since the last write; kept for the next one if it fails. */
  async write(client: Pick<pg.PoolClient, 'query'> = this.pool): Promise<void> {
    if (this.pending.size === 0) return
    const entries = [...this.pending]
    this.pending.clear()
    try {
      await client.query(
        `UPDATE incidents i SET last_heard_at = greatest(coalesce(i.last_heard_at, 0), h.at)
         FROM unnest($1::text[], $2::bigint[]) AS h(id, at) WHERE i.id = h.id`,
        [entries.map(([id]) => id), entries.map(([, at]) => at)],
      )
    } catch (error) {
      for (const [id, at] of entries) if (!this.pending.has(id)) this.pending.set(id, at)
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
