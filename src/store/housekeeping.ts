interface Counters {
  recordsPruned: { inc(n?: number): void }
  housekeepingRuns: { inc(): void }
  workerFailures: { inc(): void }
}

/** D22: retention pruning, at start and then every `intervalMs` (an hour). */
export class Housekeeping {
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly prune: (cutoff: number) => number,
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

  runOnce(): number {
    try {
      const cutoff = this.now() - this.options.retentionDays * 86_400_000
      const pruned = this.prune(cutoff)
      this.counters.housekeepingRuns.inc()
      if (pruned > 0) this.counters.recordsPruned.inc(pruned)
      this.log.info({ pruned, cutoff: new Date(cutoff).toISOString() }, 'housekeeping done')
      return pruned
    } catch (error) {
      this.health?.failed('housekeeping', error)
      this.counters.workerFailures.inc()
      this.log.error({ err: error }, 'housekeeping failed')
      return 0
    }
  }
}
