interface Counters {
  recordsPruned: { inc(n?: number): void }
  housekeepingRuns: { inc(): void }
  workerFailures: { inc(): void }
}

/** D22: retention pruning, at start and then every `intervalMs` (an hour). */
export class Housekeeping {
  private timer: NodeJS.Timeout | undefined

  constructor(
    /** Records removed; a promise on PostgreSQL. */
    private readonly prune: (cutoff: number) => number | Promise<number>,
    private readonly counters: Counters,
    private readonly options: { retentionDays: number; intervalMs: number },
    private readonly log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void },
    private readonly now: () => number = Date.now,
    private readonly health?: { failed(operation: string, error: unknown): void },
  ) {}

  start(): void {
    this.runOnce()
    this.timer = setInterval(() => this.runOnce(), this.options.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** The records removed: at once on SQLite, a promise on PostgreSQL. */
  runOnce(): number | Promise<number> {
    const cutoff = this.now() - this.options.retentionDays * 86_400_000
    try {
      const pruned = this.prune(cutoff)
      return pruned instanceof Promise
        ? pruned.then(
            (n) => this.done(n, cutoff),
            (error: unknown) => this.failed(error),
          )
        : this.done(pruned, cutoff)
    } catch (error) {
      return this.failed(error)
    }
  }

  private done(pruned: number, cutoff: number): number {
    this.counters.housekeepingRuns.inc()
    if (pruned > 0) this.counters.recordsPruned.inc(pruned)
    this.log.info({ pruned, cutoff: new Date(cutoff).toISOString() }, 'housekeeping done')
    return pruned
  }

  private failed(error: unknown): number {
    this.health?.failed('housekeeping', error)
    this.counters.workerFailures.inc()
    this.log.error({ err: error }, 'housekeeping failed')
    return 0
  }
}
