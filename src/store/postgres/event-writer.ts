import type pg from 'pg'
import { StoreError } from '../../errors.js'
import { redactAlert, redactGroupKey } from '../../evidence/redact-alert.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import { peekNotification, planNotification } from '../../incidents/ledger-plan.js'
import type { Transition } from '../../incidents/lifecycle.js'
import { sha256Hex } from '../../sha256.js'
import { uuidv7 } from '../ids.js'
import {
  type AlertEventInput,
  accepted,
  countUntrusted,
  defaultClockSkewMs,
  duplicateEvent,
  type IngestedEvent,
  type IngestOutcome,
  type IngestRequest,
  type IngestStore,
  storedEvent,
} from '../ingest-port.js'
import type { StorageHealthPort } from '../sqlite/write-batcher.js'
import { PgHeardOccurrences } from './heard-occurrences.js'
import {
  latestEvent,
  type State,
  type StateRow,
  stateOf,
  stateQuery,
  statesOf,
  statesQuery,
  statesText,
} from './identity-states.js'
import { applyWrite, ledgerStatements, writeStatement } from './ledger-writes.js'
import { inTransaction } from './pool.js'
import { PreparedStatements } from './prepared.js'
import type { Statement } from './sql-literals.js'

const insertEvent = `WITH event AS (INSERT INTO events (id, identity, fingerprint, status, starts_at, ends_at,
  starts_ms, ends_ms, alertname, instance, severity, alert, receiver, group_key, principal, received_at, incident_id,
  transition, after_event_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id)
  INSERT INTO queue_items (event_id, available_at, created_at, updated_at) SELECT id, $16, $16, $16 FROM event WHERE $20`

/** The cluster's queued items (D9's capacity), from the shards a trigger keeps (migration 0004). */
const queuedText = "SELECT coalesce(sum(items), 0)::int AS n FROM queue_depth WHERE status = 'queued'"
/** Transaction-scoped advisory locks, taken in the order of the array. */
const locksText = 'SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k'

/** Every statement of the ingest transaction, prepared once per connection. */
const ingestStatements = new PreparedStatements({
  queued: queuedText,
  locks: locksText,
  states: statesText,
  insert_event: insertEvent,
  ...ledgerStatements,
})

/**
 * What the ingest transaction does before its first read, in the round trip of its BEGIN:
 * the cluster's queued items (D9's capacity) and the transaction-scoped advisory locks of
 * the alerts' identities, in sorted order (no deadlock between two requests).
 */
function openIngest(alerts: readonly AlertEventInput[]): string {
  const keys = [...new Set(alerts.map((alert) => lockKey(alert.identity)))].sort().map(BigInt)
  return [
    PreparedStatements.generic,
    ingestStatements.execute({ text: queuedText, values: [] }),
    ingestStatements.execute({ text: locksText, values: [keys] }),
  ].join(';')
}

/** The queued count from the results of openIngest's statements (the second). */
const queuedIn = (opened: readonly pg.QueryResult[]) => Number(opened[1]?.rows[0]?.n)

/** An identity's advisory lock: 60 bits of its SHA-256, a positive bigint. */
export const lockKey = (identity: string) => BigInt(`0x${sha256Hex(identity).slice(0, 15)}`).toString()

/** SQLSTATEs after which the whole transaction is run again: it lost a race, nothing was written. */
const retried = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '23505', // unique_violation: another replica filed the same occurrence first
])
const maxTries = 5

type Client = Pick<pg.PoolClient, 'query'>

/** A request waiting for its batch. */
interface Pending {
  request: IngestRequest
  resolve: (outcome: IngestOutcome) => void
  reject: (error: unknown) => void
}

/**
 * Write batches in flight at once: one commits while the next gathers and plans; more only
 * makes each batch smaller (docs/performance.md, "Replicas on PostgreSQL").
 */
const maxWritesInFlight = 2

/** A batch's bounds: its statements stay a few megabytes at most. */
const maxBatchRequests = 64
const maxBatchAlerts = 512

/**
 * A fault of one statement (bad data, a constraint) rather than of the connection or the
 * server (classes 08, 53, 57, 58, or no SQLSTATE at all: a time-out, a reset): only the first
 * kind is worth running each request of a failed batch alone for.
 */
const isStatementFault = (error: unknown) => {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|53|57|58)/.test(code)
}

/** Whether an alert of the request repeats an identity: its later alert must see the earlier one's writes. */
const repeatsIdentity = (request: IngestRequest) =>
  new Set(request.alerts.map((alert) => alert.identity)).size !== request.alerts.length

/** Identities remembered at most; past it the oldest are forgotten (insertion order). */
const seenCapacity = 100_000

/** The identities a replica met, so that it reads a repeat before it locks it; a hint, never a decision. */
class SeenIdentities {
  private readonly identities = new Set<string>()

  knowsAll(alerts: readonly AlertEventInput[]): boolean {
    return alerts.every((alert) => this.identities.has(alert.identity))
  }

  add(alerts: readonly AlertEventInput[]): void {
    for (const { identity } of alerts) {
      this.identities.delete(identity)
      this.identities.add(identity)
    }
    for (const oldest of this.identities) {
      if (this.identities.size <= seenCapacity) break
      this.identities.delete(oldest)
    }
  }
}

/** What one request of a batch makes: its answer, and the statements that store it. */
interface Planned {
  outcome: IngestOutcome
  statements: Statement[]
  /** Occurrences whose repeats it answered: heard, once committed. */
  heard: string[]
}

/**
 * Ingest on PostgreSQL (docs/design.md, "Storage"). Requests are committed in batches, as
 * the SQLite adapter does: the requests that arrive while a batch is in flight, whose alerts
 * name distinct identities, are the next batch, one transaction of two round trips. The
 * first sends the BEGIN, the cluster's queued count, the transaction-scoped advisory locks of
 * every identity (in sorted order: no deadlock) and every notification's state read; the
 * second every row change, event and queue item, then the COMMIT, and each request's promise
 * settles only after it (synchronous_commit on). Two replicas that receive the same
 * notification at once serialise on the lock; the unique constraints (one occurrence per
 * identity and start, one open occurrence per identity) hold whatever the code does, and a
 * batch that loses a race on them is run again, when it sees the winner's rows and answers
 * "duplicate". A request whose alerts repeat an identity runs alone, one alert after another.
 */
export class PgEventWriter implements IngestStore {
  readonly heard: PgHeardOccurrences
  /** Identities this replica stored or answered: a request of these only is read before it is locked. */
  private readonly seen = new SeenIdentities()
  /** Requests of identities met before, waiting to be read as repeats. */
  private repeats: Pending[] = []
  /** Requests waiting for a write batch. */
  private pending: Pending[] = []
  private readsInFlight = 0
  private writesInFlight = 0
  /** Reads of repeats in flight at once: half the pool, so that the worker and the outbox keep connections. */
  private readonly maxReadsInFlight: number

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: {
      queueCapacity: number
      clockSkewMs?: number
      now?: () => number
      untrusted?: { inc: (labels: { field: 'startsAt' | 'endsAt' }) => void }
      onQueued?: () => void
      redaction?: RedactionOptions
      /** Told of every fault of the database and of the first success after one (readiness). */
      health?: StorageHealthPort
      /** Counts the transactions run again, by SQLSTATE. */
      retries?: { inc: (labels: { code: string }) => void }
    },
  ) {
    this.heard = new PgHeardOccurrences(pool)
    this.maxReadsInFlight = Math.max(1, Math.floor((pool.options.max ?? 10) / 2))
  }

  private get skew(): number {
    return this.options.clockSkewMs ?? defaultClockSkewMs
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  submit(request: IngestRequest): Promise<IngestOutcome> {
    countUntrusted(request.alerts, this.now(), this.skew, this.options.untrusted)
    if (repeatsIdentity(request)) return this.submitAlone(request)
    return new Promise((resolve, reject) => {
      const waiting = { request, resolve, reject }
      if (this.seen.knowsAll(request.alerts)) this.repeats.push(waiting)
      else this.pending.push(waiting)
      this.startBatches()
    })
  }

  /** Every request settled after its own commit: only the duplicates' hearing waits. */
  async flush(): Promise<void> {
    await this.heard.write().catch(() => {})
  }

  private startBatches(): void {
    while (this.readsInFlight < this.maxReadsInFlight && this.repeats.length > 0) {
      const batch = this.repeats.splice(0, maxBatchRequests)
      this.readsInFlight++
      void this.answerRepeats(batch)
        .then((rest) => this.pending.push(...rest))
        .finally(() => {
          this.readsInFlight--
          this.startBatches()
        })
    }
    while (this.writesInFlight < maxWritesInFlight && this.pending.length > 0) {
      const batch = this.takeBatch()
      this.writesInFlight++
      void this.runBatch(batch).finally(() => {
        this.writesInFlight--
        this.startBatches()
      })
    }
  }

  /** The first waiting request and the next ones whose identities none before it in the batch names. */
  private takeBatch(): Pending[] {
    const batch: Pending[] = []
    const identities = new Set<string>()
    let alerts = 0
    const left: Pending[] = []
    for (const pending of this.pending) {
      const names = pending.request.alerts.map((alert) => alert.identity)
      const fits =
        batch.length === 0 ||
        (batch.length < maxBatchRequests &&
          alerts + names.length <= maxBatchAlerts &&
          names.every((identity) => !identities.has(identity)))
      if (!fits) {
        left.push(pending)
        continue
      }
      batch.push(pending)
      alerts += names.length
      for (const identity of names) identities.add(identity)
    }
    this.pending = left
    return batch
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const planned = await this.writeBatch(batch.map((pending) => pending.request))
        this.options.health?.succeeded()
        const now = this.now()
        let queued = 0
        for (const pending of batch) this.seen.add(pending.request.alerts)
        planned.forEach(({ outcome, heard }, i) => {
          for (const incidentId of heard) this.heard.heard(incidentId, now, batch[i]?.request)
          if (outcome.kind === 'accepted') queued += outcome.queued
          batch[i]?.resolve(outcome)
        })
        if (queued > 0) this.options.onQueued?.()
        return
      } catch (error) {
        if (await this.runAgain(error, attempt)) continue
        // One request's data may be at fault: each alone, so that it fails alone.
        if (batch.length > 1 && isStatementFault(error)) {
          await Promise.all(batch.map((pending) => this.runBatch([pending])))
          return
        }
        const failure = this.storageFault(error)
        for (const pending of batch) pending.reject(failure)
        return
      }
    }
  }

  /**
   * Alertmanager's repeats (most webhook traffic) answered from committed reads, one round
   * trip for the batch and no transaction: the requests whose every identity this replica
   * has stored or answered before, and that turn out to repeat only, settle here; the
   * rest go on to the transaction, which decides under the locks. A new alert is not read
   * twice.
   */
  private async answerRepeats(known: Pending[]): Promise<Pending[]> {
    const alerts = known.flatMap((pending) => pending.request.alerts)
    const answered = new Set<Pending>()
    try {
      const read = await ingestStatements.query<StateRow & { n: number }>(this.pool, statesQuery(alerts))
      const states = statesOf(read.rows, alerts)
      const now = this.now()
      let offset = 0
      for (const pending of known) {
        const { alerts: own } = pending.request
        const ownStates = states.slice(offset, offset + own.length)
        offset += own.length
        const repeats = own.map((alert, i) => peekNotification(ownStates[i] as State, alert, now, this.skew))
        if (!repeats.every((t) => t.kind === 'duplicate')) continue
        const events: IngestedEvent[] = []
        for (const [i, alert] of own.entries()) {
          const t = repeats[i] as Extract<Transition, { kind: 'duplicate' }>
          events.push(await this.duplicate(this.pool, alert, t, ownStates[i] as State))
          this.heard.heard(t.occurrence.id, now, pending.request)
        }
        answered.add(pending)
        pending.resolve(accepted(events, 0))
      }
    } catch (error) {
      // A fault of the database fails them now, within the one time-out (a write batch
      // would wait for it again); any other goes on to the transaction, which decides.
      if (!isStatementFault(error)) {
        const failure = this.storageFault(error)
        for (const pending of known) if (!answered.has(pending)) pending.reject(failure)
        return []
      }
    }
    return known.filter((pending) => !answered.has(pending))
  }

  /** A request that cannot be stored: told to the storage health, and a StoreError (the webhook's 503). */
  private storageFault(error: unknown): StoreError {
    this.options.health?.failed('ingest', error)
    return error instanceof StoreError ? error : new StoreError('ingest request', { cause: error })
  }

  /**
   * Whether a transaction that failed with `error` on its `attempt` is run again: it lost a
   * race (`retried`) and has tries left. Counted, and after a pause a little apart, at
   * random, so that the transactions that collided do not collide again at once.
   */
  private async runAgain(error: unknown, attempt: number): Promise<boolean> {
    const code = (error as { code?: string }).code
    if (attempt >= maxTries || code === undefined || !retried.has(code)) return false
    this.options.retries?.inc({ code })
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    return true
  }

  /** One transaction of two round trips for the whole batch (see the class). */
  private writeBatch(requests: IngestRequest[]): Promise<Planned[]> {
    const alerts = requests.flatMap((request) => request.alerts)
    const opening = `${openIngest(alerts)};${ingestStatements.execute(statesQuery(alerts))};`
    return inTransaction(
      this.pool,
      async (client, opened) => {
        const queuedAtStart = queuedIn(opened)
        const states = statesOf((opened.at(-1)?.rows ?? []) as Array<StateRow & { n: number }>, alerts)
        const now = this.now()
        let queued = queuedAtStart
        let offset = 0
        const planned: Planned[] = []
        for (const request of requests) {
          const own = states.slice(offset, offset + request.alerts.length)
          offset += request.alerts.length
          const plan = await this.plan(client, request, own, now, queued)
          if (plan.outcome.kind === 'accepted') queued += plan.outcome.queued
          planned.push(plan)
        }
        return planned
      },
      {
        opening,
        closing: (planned) =>
          planned
            .flatMap((plan) => plan.statements.map((statement) => `${ingestStatements.execute(statement)};`))
            .join(''),
        prepared: ingestStatements,
      },
    )
  }

  /**
   * A request's answer and statements from its alerts' states. A request of repeats only is
   * answered whatever the queue holds; any other is refused when the cluster's queue, with
   * the batch's requests before it, is at its capacity (D9).
   */
  private async plan(
    client: Client,
    request: IngestRequest,
    states: State[],
    now: number,
    queuedBefore: number,
  ): Promise<Planned> {
    const ids = request.alerts.map(() => ({ eventId: uuidv7(now), newId: uuidv7(now) }))
    const plans = request.alerts.map((alert, i) =>
      planNotification(states[i] as State, alert, ids[i] as (typeof ids)[number], now, this.skew),
    )
    const onlyRepeats = plans.every((plan) => plan.transition.kind === 'duplicate')
    if (!onlyRepeats && queuedBefore >= this.options.queueCapacity) {
      return { outcome: { kind: 'queue_full' }, statements: [], heard: [] }
    }
    const events: IngestedEvent[] = []
    const statements: Statement[] = []
    const heard: string[] = []
    let queued = 0
    for (const [i, alert] of request.alerts.entries()) {
      const { writes, ...applied } = plans[i] as (typeof plans)[number]
      const t = applied.transition
      if (t.kind === 'duplicate') {
        events.push(await this.duplicate(client, alert, t, states[i] as State))
        heard.push(t.occurrence.id)
        continue
      }
      const { eventId } = ids[i] as (typeof ids)[number]
      statements.push(...writes.map(writeStatement), this.eventStatement(request, alert, eventId, applied, now))
      if (applied.mail) queued++
      events.push(storedEvent(alert, eventId, applied))
    }
    return { outcome: accepted(events, queued), statements, heard }
  }

  /** The event and, when it has a mail to make, its queue item: one statement. */
  private eventStatement(
    request: IngestRequest,
    alert: AlertEventInput,
    eventId: string,
    applied: Omit<ReturnType<typeof planNotification>, 'writes'>,
    now: number,
  ): Statement {
    return {
      text: insertEvent,
      values: [
        eventId,
        alert.identity,
        alert.claimedFingerprint,
        alert.status,
        alert.startsAtText,
        alert.endsAtText,
        alert.startsAt,
        alert.endsAt,
        alert.alertname,
        alert.instance,
        alert.severity,
        JSON.stringify(redactAlert(alert.alert, this.options.redaction)),
        request.receiver,
        redactGroupKey(request.groupKey, this.options.redaction),
        request.principal,
        now,
        applied.incidentId,
        applied.transition.kind,
        applied.afterEventId,
        applied.mail !== null,
      ],
    }
  }

  /**
   * A request whose alerts repeat an identity, alone: each alert's state is read after the
   * writes of the alerts before it, in one transaction.
   */
  private async submitAlone(request: IngestRequest): Promise<IngestOutcome> {
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const outcome = await inTransaction(
            this.pool,
            (client, opened) => this.writeAlone(client, request, this.now(), queuedIn(opened)),
            { opening: openIngest(request.alerts), prepared: ingestStatements },
          )
          this.options.health?.succeeded()
          if (outcome.kind === 'accepted' && outcome.queued > 0) this.options.onQueued?.()
          return outcome
        } catch (error) {
          if (!(await this.runAgain(error, attempt))) throw error
        }
      }
    } catch (error) {
      throw this.storageFault(error)
    }
  }

  private async writeAlone(
    client: pg.PoolClient,
    request: IngestRequest,
    now: number,
    queuedNow: number,
  ): Promise<IngestOutcome> {
    const events: IngestedEvent[] = []
    let queued = 0
    for (const alert of request.alerts) {
      const state = stateOf(
        (await client.query<StateRow>(stateQuery, [alert.identity, alert.startsAt, alert.status])).rows,
        alert.startsAt,
      )
      const eventId = uuidv7(now)
      const { writes, ...applied } = planNotification(state, alert, { eventId, newId: uuidv7(now) }, now, this.skew)
      const t = applied.transition
      if (t.kind === 'duplicate') {
        events.push(await this.duplicate(client, alert, t, state))
        this.heard.heard(t.occurrence.id, now, request)
        continue
      }
      // D9: the capacity counts the cluster's queue, read inside the transaction.
      if (queuedNow >= this.options.queueCapacity) return { kind: 'queue_full' }
      for (const w of writes) await applyWrite(client, w)
      const { text, values } = this.eventStatement(request, alert, eventId, applied, now)
      await client.query(text, values as unknown[])
      if (applied.mail) queued++
      events.push(storedEvent(alert, eventId, applied))
    }
    return accepted(events, queued)
  }

  private async duplicate(
    client: Client,
    alert: AlertEventInput,
    t: Extract<Transition, { kind: 'duplicate' }>,
    state: State,
  ): Promise<IngestedEvent> {
    // A repeat of the occurrence at its start came with its answer; a start not believed,
    // taken as a copy of the open occurrence, reads it.
    const eventId =
      t.occurrence.id === state.same?.id && state.repeats !== null
        ? state.repeats
        : ((await client.query<{ id: string }>(latestEvent, [t.occurrence.id, alert.status])).rows[0]?.id as string)
    return duplicateEvent(alert, { eventId, incidentId: t.occurrence.id })
  }
}
