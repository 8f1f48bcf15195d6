import type pg from 'pg'

/** What a replica says of itself; the other replicas compare it with their own. */
export interface ReplicaFacts {
  version: string
  /** The rule catalogue it diagnoses with (built-in versions and the custom rules' ids). */
  catalogue: string
  /** A hash of its inventory file: the evidence it reads. */
  inventory: string
}

export interface ReplicaCensus {
  live: number
  /** Live replicas whose version, catalogue or inventory differs from this one's. */
  differing: { version: number; catalogue: number; inventory: number }
}

/**
 * The replicas table (docs/operations.md, "Replicas on PostgreSQL"): each replica writes a
 * heartbeat with its facts every `everyMs`; one heard within three heartbeats is live.
 * Replicas gone longer than a day are removed by whoever beats next.
 */
export class ReplicaRegistry {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly pool: pg.Pool,
    private readonly id: string,
    private readonly host: string,
    private readonly facts: () => ReplicaFacts,
    private readonly everyMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  async beat(): Promise<void> {
    const { version, catalogue, inventory } = this.facts()
    const now = this.now()
    await this.pool.query(
      `INSERT INTO replicas (id, host, version, catalogue, inventory, started_at, heartbeat_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (id) DO UPDATE SET version = $3, catalogue = $4, inventory = $5, heartbeat_at = $6`,
      [this.id, this.host, version, catalogue, inventory, now],
    )
    await this.pool.query('DELETE FROM replicas WHERE heartbeat_at < $1', [now - 86_400_000])
  }

  start(onError: (error: unknown) => void): void {
    const beat = () => void this.beat().catch(onError)
    beat()
    this.timer = setInterval(beat, this.everyMs)
    this.timer.unref()
  }

  /** Leaves the table at a clean shutdown, so the count drops at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    await this.pool.query('DELETE FROM replicas WHERE id = $1', [this.id]).catch(() => {})
  }

  async census(): Promise<ReplicaCensus> {
    const mine = this.facts()
    const { rows } = await this.pool.query<ReplicaFacts>(
      'SELECT version, catalogue, inventory FROM replicas WHERE heartbeat_at >= $1',
      [this.now() - 3 * this.everyMs],
    )
    const differ = (key: keyof ReplicaFacts) => rows.filter((row) => row[key] !== mine[key]).length
    return {
      live: rows.length,
      differing: { version: differ('version'), catalogue: differ('catalogue'), inventory: differ('inventory') },
    }
  }
}
