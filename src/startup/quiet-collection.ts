import type { Analysis } from '../worker/analysis/analysis-pool.js'
import { IdlePeriod, type IdleTimers, realTimers } from '../worker/analysis/idle-period.js'

/**
 * Memory given back as soon as the work stops (docs/design.md, "Memory is given back when the
 * work stops"): after `ms` (DIAG_ANALYSIS_QUIET_SECONDS, 0: never) with no request received
 * and no analysis running, `collect` runs once (every isolate collected, compacting); it runs
 * again only after the next activity and another quiet stretch, so a busy service pays nothing
 * and a quiet one one collection per burst.
 */
export class QuietCollection {
  private running = 0
  private collect: () => Promise<void> = async () => {}
  private readonly period: IdlePeriod

  constructor(ms: number, timers: IdleTimers = realTimers) {
    this.period = new IdlePeriod(
      ms,
      () => {
        // The collection reports its own failures (background.ts); none may end the process.
        this.collect().catch(() => {})
        return true
      },
      timers,
    )
  }

  /** What a quiet stretch runs: set once the analysis it collects exists. */
  onQuiet(collect: () => Promise<void>): void {
    this.collect = collect
  }

  /** A request arrived: the quiet stretch starts again from now. */
  touch(): void {
    this.period.busy()
    if (this.running === 0) this.period.idle()
  }

  /** Work that lasts (an analysis): no quiet stretch until it and any other has ended. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.running++
    this.period.busy()
    try {
      return await work()
    } finally {
      if (--this.running === 0) this.period.idle()
    }
  }

  close(): void {
    this.period.close()
  }
}

/** The analysis, each of its analyses and diagnoses counted as work that keeps the service from quiet. */
export function quietDuringAnalysis(analysis: Analysis, quiet: QuietCollection): Analysis {
  return {
    ready: () => analysis.ready(),
    analyzeLogs: (files, roots) => quiet.during(() => analysis.analyzeLogs(files, roots)),
    diagnose: (evidence) => quiet.during(() => analysis.diagnose(evidence)),
    addCustomRule: (rule) => analysis.addCustomRule(rule),
    collect: () => analysis.collect(),
    close: () => analysis.close(),
  }
}
