import type { Readiness } from '../readiness.js'

export interface QueueCounts {
  /** Events waiting for the worker. */
  queued: number
  /** Events the worker has finished (done or failed) since the database was created. */
  finished: number
}

/**
 * Readiness DOWN (`queue_stalled`) while the queue is full and nothing has finished for
 * `stallMs`: every webhook is answered 503 then, so a load balancer should send traffic to
 * a replica that drains. A full queue that drains stays ready: that is back-pressure.
 */
export class QueueStallMonitor {
  private timer: NodeJS.Timeout | undefined
  private lastFinished = -1
  private lastProgressAt = 0

  constructor(
    private readonly counts: () => QueueCounts | Promise<QueueCounts>,
    private readonly readiness: Pick<Readiness, 'fault'>,
    private readonly options: { capacity: number; stallMs: number; everyMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  async check(): Promise<void> {
    const { queued, finished } = await this.counts()
    const at = this.now()
    if (finished !== this.lastFinished || queued < this.options.capacity) {
      this.lastFinished = finished
      this.lastProgressAt = at
    }
    this.readiness.fault('queue_stalled', at - this.lastProgressAt >= this.options.stallMs)
  }

  start(): void {
    // A count the storage cannot give now (a fault) changes nothing: readiness says that fault.
    const check = () => void this.check().catch(() => {})
    check()
    this.timer = setInterval(check, this.options.everyMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
