import type { MailTransport } from './mail-transport.js'
import type { OutgoingMail } from './outgoing-mail.js'

export interface OutboxRow extends OutgoingMail {
  id: number
  attempts: number
  /**
   * The claim this row was handed out under, where several replicas share the outbox: its
   * outcome is recorded only while the claim holds (a fencing token).
   */
  claim?: string
  /** The alert the mail is about, for the log lines (docs/operations.md, "Reading the log"). */
  alertname?: string
  instance?: string
}

type Claimed = { id: number; attempts: number; claim?: string }

/** What became of one delivery attempt. */
export type DeliveryOutcome =
  | (Claimed & { state: 'sent'; at: number })
  | (Claimed & { state: 'retry'; nextAttemptAt: number; error: string })
  | (Claimed & { state: 'failed'; error: string })

/** What the sender needs from storage (implemented in store/; SQLite records synchronously). */
export interface OutboxStore {
  /** Due rows, handed to this sender alone until it records them (or its claim expires). */
  due(now: number, limit: number): OutboxRow[] | Promise<OutboxRow[]>
  /** Records the outcomes of one batch in one transaction. */
  record(outcomes: readonly DeliveryOutcome[]): void | Promise<void>
  /**
   * Where rows are claimed (several replicas): extends a claim while its rows are being
   * sent, every `everyMs`, so that a send slower than the claim (a loaded host, a slow
   * relay) keeps it and no other replica sends the same mail again meanwhile.
   */
  renew?: { everyMs: number; claim(claim: string, now: number): Promise<void> }
}

export interface SenderOptions {
  maxAttempts: number
  baseDelayMs: number
  maxDelayMs: number
  pollMs: number
  batch: number
}

interface Counters {
  notificationsSent: { inc(): void }
  notificationsFailed: { inc(): void }
}

/** SMTP 5xx is final; 4xx and connection or timeout errors are worth retrying (D24). */
export function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: number }).responseCode
  return typeof code === 'number' && code >= 500
}

/**
 * Delivers the durable outbox (D24): due rows are sent; a transient failure is retried
 * with exponential backoff until `maxAttempts`, then the row is failed and counted. The
 * message is only marked sent after the transport accepted it, so a crash re-sends it
 * with the same Message-ID rather than losing it.
 */
export class OutboxSender {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  /** A kick that came during a drain: its row may have been committed after the drain's query. */
  private kickedWhileRunning = false
  private stopped = true

  constructor(
    private readonly store: OutboxStore,
    private readonly transport: MailTransport,
    private readonly counters: Counters,
    private readonly options: SenderOptions,
    private readonly log: {
      info(obj: object, msg: string): void
      warn(obj: object, msg: string): void
      error(obj: object, msg: string): void
    },
    private readonly now: () => number = Date.now,
    private readonly health?: { failed(operation: string, error: unknown): void },
  ) {}

  start(): void {
    this.stopped = false
    this.kick()
  }

  /** Sends what is due now (called after a new row is committed, and on a timer). */
  kick(): void {
    if (this.stopped) return
    if (this.running) {
      this.kickedWhileRunning = true
      return
    }
    clearTimeout(this.timer)
    this.kickedWhileRunning = false
    this.running = this.drain().finally(() => {
      this.running = undefined
      if (this.stopped) return
      if (this.kickedWhileRunning) this.kick()
      else this.timer = setTimeout(() => this.kick(), this.options.pollMs)
    })
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
    this.transport.close()
  }

  // The outcomes of a batch are committed together: one fsync per batch rather than per
  // e-mail. A crash before that commit re-sends the batch with the same Message-IDs. When
  // the commit fails (a full disk, a lock), the outcomes wait in memory and are recorded
  // before anything else is sent, so a delivered mail is not sent again.
  private unrecorded: DeliveryOutcome[] = []

  private async drain(): Promise<void> {
    try {
      // A synchronous store (SQLite) is not awaited: no turn of the event loop between a
      // commit and the drain that reads it.
      if (this.unrecorded.length > 0) {
        const recorded = this.store.record(this.unrecorded)
        if (recorded instanceof Promise) await recorded
        this.unrecorded = []
      }
      for (;;) {
        const due = this.store.due(this.now(), this.options.batch)
        const rows = due instanceof Promise ? await due : due
        const stopRenewing = this.keepClaimed(rows)
        let outcomes: DeliveryOutcome[]
        try {
          outcomes = await Promise.all(rows.map((row) => this.deliver(row)))
          for (const outcome of outcomes) {
            if (outcome.state === 'sent') this.counters.notificationsSent.inc()
            if (outcome.state === 'failed') this.counters.notificationsFailed.inc()
          }
          if (outcomes.length > 0) {
            this.unrecorded = outcomes
            const recorded = this.store.record(outcomes)
            if (recorded instanceof Promise) await recorded
            this.unrecorded = []
          }
        } finally {
          stopRenewing()
        }
        // A mail that was waiting for one just sent (or failed for good) is due now.
        const settled = outcomes.some((outcome) => outcome.state !== 'retry')
        if ((rows.length < this.options.batch && !settled) || this.stopped) return
      }
    } catch (error) {
      this.health?.failed('outbox', error)
      this.log.error({ err: error, unrecorded: this.unrecorded.length }, 'the outbox could not be read or updated')
    }
  }

  /** Renews the claims of rows being sent until their outcomes are recorded (OutboxStore.renew). */
  private keepClaimed(rows: readonly OutboxRow[]): () => void {
    const renew = this.store.renew
    const claims = [...new Set(rows.flatMap((row) => (row.claim === undefined ? [] : [row.claim])))]
    if (!renew || claims.length === 0) return () => {}
    const timer = setInterval(() => {
      for (const claim of claims) {
        // A renewal that fails leaves the claim to expire, as a dead replica's would.
        renew.claim(claim, this.now()).catch(() => {})
      }
    }, renew.everyMs)
    return () => clearInterval(timer)
  }

  private async deliver(row: OutboxRow): Promise<DeliveryOutcome> {
    const attempts = row.attempts + 1
    const claimed = row.claim === undefined ? { id: row.id, attempts } : { id: row.id, attempts, claim: row.claim }
    // Which mail of which alert: the same fields as the worker's lines about its event.
    const mail = {
      eventId: row.eventId,
      alertname: row.alertname,
      instance: row.instance,
      kind: row.kind,
      messageId: row.messageId,
      attempts,
    }
    try {
      await this.transport.send(row)
    } catch (error) {
      const reason = (error as Error).message?.slice(0, 500) ?? String(error)
      if (isPermanent(error) || attempts >= this.options.maxAttempts) {
        this.log.error({ ...mail, reason }, 'e-mail delivery failed for good')
        return { ...claimed, state: 'failed', error: reason }
      }
      const delay = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (attempts - 1))
      this.log.warn({ ...mail, retryInMs: delay, reason }, 'e-mail delivery failed; will retry')
      return { ...claimed, state: 'retry', nextAttemptAt: this.now() + delay, error: reason }
    }
    // Outside the try: only the relay's answer decides whether the mail went.
    this.log.info({ ...mail, recipients: row.recipients.length }, 'e-mail sent')
    return { ...claimed, state: 'sent', at: this.now() }
  }
}
