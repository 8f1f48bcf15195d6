import { isHostFault } from '../host-faults.js'
import { EventLog, type LogSink } from './event-log.js'
import type { Lease, ProcessOutcome, QueuePort } from './ports.js'

export interface WorkerOptions {
  /** Events processed at once: collection waits on I/O (probe, metrics), so several overlap. */
  concurrency: number
  leaseMs: number
  /** How often expired leases are looked for. */
  sweepMs: number
  /** How often the queue is polled when nothing woke the worker. */
  pollMs: number
  /** Processing errors (not lease expiries) before an item is failed for good. */
  maxAttempts: number
  retryBaseMs: number
  /** How long an event waits after a fault of the host (host-faults.ts); no attempt is spent. */
  hostFaultDelayMs?: number
}

interface Counters {
  staleLocksRecovered: { inc(n?: number): void }
  staleLocksExhausted: { inc(n?: number): void }
  workerFailures: { inc(): void }
}

/**
 * The background worker (D25): claims queued events up to `concurrency`, renews each lease
 * while the event is processed, completes it, and re-queues expired leases of crashed or
 * hung workers. An unexpected failure is counted and the loop goes on.
 */
export class Worker {
  private readonly inFlight = new Set<Promise<void>>()
  private pollTimer: NodeJS.Timeout | undefined
  private sweepTimer: NodeJS.Timeout | undefined
  private running = false
  /** The claim being committed, if any. */
  private claim: Promise<void> | undefined
  private kickedWhileClaiming = false
  /**
   * Leases the storage would not take back during a fault of the host (the item to re-queue,
   * and when), and leases whose renewal failed: both are settled before the sweep re-queues
   * expired leases, so a fault longer than a lease spends none of an event's expiries.
   */
  private readonly stranded = new Map<Lease, { delayMs: number; reason: string }>()
  private readonly unrenewed = new Set<Lease>()

  constructor(
    private readonly queue: QueuePort,
    /**
     * Processes the leased event. It calls `completed` when its own commit completed the
     * lease (the queue item done with the result); otherwise the worker completes it after.
     */
    private readonly process: (lease: Lease, completed: () => void, log: EventLog) => Promise<ProcessOutcome>,
    private readonly counters: Counters,
    private readonly options: WorkerOptions,
    private readonly log: LogSink,
  ) {}

  start(): void {
    this.running = true
    void this.sweep()
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sweepMs)
    this.kick()
  }

  /** Claims work now: called after ingestion commits, on completion and on a timer. */
  kick(): void {
    if (!this.running) return
    clearTimeout(this.pollTimer)
    this.pollTimer = setTimeout(() => this.kick(), this.options.pollMs)
    // One claim at a time: a kick while one is being committed claims again right after it.
    if (this.claim) {
      this.kickedWhileClaiming = true
      return
    }
    // Claims come in chunks of a quarter of the slots, or at once when the worker is idle.
    const free = this.options.concurrency - this.inFlight.size
    if (free < Math.max(1, Math.floor(this.options.concurrency / 4)) && this.inFlight.size > 0) return
    this.claim = new Promise<Lease[]>((resolve) => resolve(this.queue.claimMany(free)))
      .then(
        (leases) => {
          // Even after stop(): it waits for this claim, then for these events.
          for (const lease of leases) {
            const job: Promise<void> = this.run(lease).finally(() => {
              this.inFlight.delete(job)
              this.kick()
            })
            this.inFlight.add(job)
          }
        },
        (error: unknown) => {
          if (isHostFault(error)) {
            this.log.warn({ err: error }, 'no claim: the database does not take writes; retrying')
            return
          }
          this.counters.workerFailures.inc()
          this.log.error({ err: error }, 'worker loop failed to claim; retrying')
        },
      )
      .finally(() => {
        this.claim = undefined
        if (this.kickedWhileClaiming) {
          this.kickedWhileClaiming = false
          this.kick()
        }
      })
  }

  /** Stops claiming and waits for events in flight, at most `timeoutMs` (D28). */
  async stop(timeoutMs: number): Promise<void> {
    this.running = false
    clearTimeout(this.pollTimer)
    clearInterval(this.sweepTimer)
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref())
    // Unfinished events keep their lease; it expires and another start re-processes them.
    const drained = (this.claim ?? Promise.resolve()).then(() => Promise.allSettled([...this.inFlight]))
    await Promise.race([drained.then(() => undefined), timeout])
    try {
      await this.settleLeases()
    } catch (error) {
      this.log.warn({ err: error, stranded: this.stranded.size }, 'stranded leases left to expire')
    }
  }

  private async run(lease: Lease): Promise<void> {
    const events = new EventLog(this.log, lease.eventId)
    const renew = setInterval(
      () => {
        Promise.resolve()
          .then(() => this.queue.renew(lease))
          .then(
            (renewed) => {
              if (!renewed) events.log.warn({}, 'lease lost while processing')
              this.unrenewed.delete(lease)
            },
            (error: unknown) => {
              this.unrenewed.add(lease)
              events.log.error({ err: error }, 'lease renewal failed')
            },
          )
      },
      Math.max(100, Math.floor(this.options.leaseMs / 3)),
    )
    try {
      let completed = false
      const outcome = await this.process(
        lease,
        () => {
          completed = true
        },
        events,
      )
      if (typeof outcome !== 'string') {
        if (!completed) await this.queue.defer(lease, outcome.deferMs, outcome.reason)
        return
      }
      if (!completed) await this.queue.complete(lease)
      events.log.info({ outcome }, 'event processed')
    } catch (error) {
      await this.failed(lease, error, events.log)
    } finally {
      clearInterval(renew)
      this.unrenewed.delete(lease)
    }
  }

  /**
   * A processing error spends an attempt; a fault of the host (disk full, database locked)
   * does not, and the item waits `hostFaultDelayMs`. When even that write fails, the sweep
   * re-queues the item once the storage is back, still without spending anything.
   */
  private async failed(lease: Lease, error: unknown, log: LogSink): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error)
    if (isHostFault(error)) {
      log.warn({ err: error }, 'event not stored for a fault of the host; will retry')
      const delayMs = this.options.hostFaultDelayMs ?? 5000
      try {
        await this.queue.defer(lease, delayMs, reason)
      } catch (queueError) {
        if (isHostFault(queueError)) this.stranded.set(lease, { delayMs, reason })
        else log.error({ err: queueError }, 'could not re-queue the event')
      }
      return
    }
    try {
      this.counters.workerFailures.inc()
      if (lease.attempts >= this.options.maxAttempts) {
        await this.queue.fail(lease, reason)
        log.error({ err: error, attempts: lease.attempts }, 'event failed for good')
      } else {
        await this.queue.retry(lease, this.options.retryBaseMs * 2 ** (lease.attempts - 1), reason)
        log.warn({ err: error, attempts: lease.attempts }, 'event failed; will retry')
      }
    } catch (queueError) {
      log.error({ err: queueError }, 'could not re-queue the event; its lease will expire')
    }
  }

  /** Re-queues the leases a fault of the host left stranded, and renews unrenewed ones. */
  private async settleLeases(): Promise<void> {
    for (const [lease, { delayMs, reason }] of this.stranded) {
      await this.queue.defer(lease, delayMs, reason)
      this.stranded.delete(lease)
    }
    for (const lease of this.unrenewed) {
      await this.queue.renew(lease)
      this.unrenewed.delete(lease)
    }
  }

  /** One sweep at a time: a slow database must not pile them up. */
  private sweeping = false

  private async sweep(): Promise<void> {
    if (this.sweeping) return
    this.sweeping = true
    try {
      await this.settleLeases()
      const { recovered, exhausted } = await this.queue.recoverExpired()
      if (recovered > 0) this.counters.staleLocksRecovered.inc(recovered)
      if (exhausted > 0) this.counters.staleLocksExhausted.inc(exhausted)
      if (recovered + exhausted > 0) this.log.warn({ recovered, exhausted }, 'expired leases handled')
    } catch (error) {
      if (isHostFault(error)) {
        this.log.warn({ err: error, stranded: this.stranded.size }, 'lease sweep waits for the database')
        return
      }
      this.counters.workerFailures.inc()
      this.log.error({ err: error }, 'lease sweep failed')
    } finally {
      this.sweeping = false
    }
  }
}
