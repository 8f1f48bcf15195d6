import type { ExpiredOccurrence } from './incident-expiry.js'

interface Counters {
  recordsPruned: { inc(n?: number): void }
  housekeepingRuns: { inc(): void }
  workerFailures: { inc(): void }
}

interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/**
 * Closes open occurrences no longer heard as expired (docs/design.md, "Incidents"), before
 * the retention run: `cutoff` is when they were last heard at the latest.
 */
export interface Expiry {
  expire(cutoff: number, now: number): ExpiredOccurrence[] | Promise<ExpiredOccurrence[]>
  hours: number
  /** Counts the occurrences closed so (diagnostic_alert_transitions_total{transition="expired"}). */
  expired: { inc(n?: number): void }
}

/** The web console's sessions (docs/design.md, "The web console"): those ended are removed. */
export interface SessionPurge {
  purge(now: number): number | Promise<number>
}

/**
 * D22: the expiry of unheard occurrences, then retention pruning, at start and every
 * `intervalMs` (an hour); beside them, the removal of ended console sessions.
 */
export class Housekeeping {
  private timer: NodeJS.Timeout | undefined

  constructor(
    /** Records removed; a promise on PostgreSQL. */
    private readonly prune: (cutoff: number) => number | Promise<number>,
    private readonly counters: Counters,
    private readonly options: { retentionDays: number; intervalMs: number },
    private readonly log: Log,
    private readonly now: () => number = Date.now,
    private readonly health?: { failed(operation: string, error: unknown): void },
    private readonly expiry?: Expiry,
    private readonly sessions?: SessionPurge,
  ) {}

  start(): void {
    this.runOnce()
    this.timer = setInterval(() => this.runOnce(), this.options.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** The records removed: at once on SQLite, a promise on PostgreSQL (settled once the sessions are removed too). */
  runOnce(): number | Promise<number> {
    const now = this.now()
    const sessions = this.purgeSessions(now)
    const records = this.expireThenPrune(now)
    return sessions instanceof Promise ? sessions.then(() => records) : records
  }

  /** A session that ended is refused anyway; removing it only keeps the table small. Never throws. */
  private purgeSessions(now: number): void | Promise<void> {
    const removed = (n: number) => {
      if (n > 0) this.log.info({ sessions: n }, 'removed ended console sessions')
    }
    const failed = (error: unknown) => void this.failed(error)
    try {
      const purged = this.sessions?.purge(now) ?? 0
      if (purged instanceof Promise) return purged.then(removed, failed)
      removed(purged)
    } catch (error) {
      failed(error)
    }
  }

  private expireThenPrune(now: number): number | Promise<number> {
    try {
      const expired = this.expiry?.expire(now - this.expiry.hours * 3_600_000, now) ?? []
      if (expired instanceof Promise) {
        return expired.then(
          (occurrences) => {
            this.expired(occurrences)
            return this.pruneOnce(now)
          },
          (error: unknown) => this.failed(error),
        )
      }
      this.expired(expired)
      return this.pruneOnce(now)
    } catch (error) {
      return this.failed(error)
    }
  }

  private pruneOnce(now: number): number | Promise<number> {
    const cutoff = now - this.options.retentionDays * 86_400_000
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

  /** Each one said: an expiry is a resolution the service never got, or a repeat_interval longer than the bound. */
  private expired(occurrences: ExpiredOccurrence[]): void {
    if (occurrences.length === 0) return
    this.expiry?.expired.inc(occurrences.length)
    const hours = this.expiry?.hours
    for (const { id, alertname, instance, fingerprint, last_heard_at } of occurrences) {
      const lastHeardAt = new Date(Number(last_heard_at)).toISOString()
      this.log.warn(
        { incidentId: id, alertname, instance, fingerprint, lastHeardAt, expiryHours: hours },
        'closed an open occurrence as expired: not heard for DIAG_INCIDENT_EXPIRY_HOURS and never resolved',
      )
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
