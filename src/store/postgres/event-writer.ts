import type pg from 'pg'
import { StoreError } from '../../errors.js'
import { redactAlert, redactGroupKey } from '../../evidence/redact-alert.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import { peekNotification, planNotification } from '../../incidents/ledger-plan.js'
import type { IdentityState, Transition } from '../../incidents/lifecycle.js'
import { sha256Hex } from '../../sha256.js'
import { uuidv7 } from '../ids.js'
import { type IncidentRow, identityState, stateQueries } from '../incident-rows.js'
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
import { applyWrite } from './ledger-writes.js'
import { inTransaction } from './pool.js'

/** PostgreSQL names parameters by position: `$identity` is $1, `$startsAt` $2. */
const positional = (query: string) => query.replaceAll('$identity', '$1').replaceAll('$startsAt', '$2')

const latestEvent = `SELECT id FROM events WHERE incident_id = $1
  ORDER BY (status = $2) DESC, received_at DESC, id DESC LIMIT 1`

// The three reads of the lifecycle in one round trip, each row tagged with the read it answers;
// the occurrence at the start also brings the stored event a repeat of status $3 would answer
// with, so that a duplicate costs this one round trip.
const stateQuery = `(SELECT 'range' AS read, r.*, CASE WHEN r.starts_at = $2 THEN
    (${latestEvent.replace('$1', 'r.id').replace('$2', '$3')}) END AS repeats
    FROM (${positional(stateQueries.atOrAfter)}) r)
  UNION ALL (SELECT 'newest', *, NULL FROM (${positional(stateQueries.newest)}) n)
  UNION ALL (SELECT 'open', *, NULL FROM (${positional(stateQueries.open)}) o)`

type StateRow = IncidentRow & { read: string; repeats: string | null }
type State = IdentityState & { repeats: string | null }

const insertEvent = `WITH event AS (INSERT INTO events (id, identity, fingerprint, status, starts_at, ends_at,
  starts_ms, ends_ms, alertname, instance, severity, alert, receiver, group_key, principal, received_at, incident_id,
  transition, after_event_id)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id)
  INSERT INTO queue_items (event_id, available_at, created_at, updated_at) SELECT id, $16, $16, $16 FROM event WHERE $20`

/**
 * What the ingest transaction does before its first read, in the round trip of its BEGIN:
 * the cluster's queued items (D9's capacity) and the transaction-scoped advisory locks of
 * the request's identities, in sorted order (no deadlock between two requests). The lock
 * keys are numbers computed here, so the statements need no parameters.
 */
function openIngest(request: IngestRequest): string {
  const keys = [...new Set(request.alerts.map((alert) => lockKey(alert.identity)))].sort()
  const locks = keys.length > 0 ? `SELECT ${keys.map((key) => `pg_advisory_xact_lock(${key})`).join(', ')};` : ''
  return `SELECT count(*)::int AS n FROM queue_items WHERE status = 'queued';${locks}`
}

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

/**
 * Ingest on PostgreSQL (docs/design.md, "Storage"). Each request is one transaction: the
 * identities of its alerts are locked with transaction-scoped advisory locks (in sorted
 * order), each notification's state is read and its lifecycle writes applied, the events
 * and queue items inserted, and the promise settles only after COMMIT (synchronous_commit
 * on). Two replicas that receive the same notification at once serialise on the lock; the
 * unique constraints (one occurrence per identity and start, one open occurrence per
 * identity) hold whatever the code does, and a transaction that loses a race on them is
 * run again, when it sees the winner's rows and answers "duplicate".
 */
export class PgEventWriter implements IngestStore {
  readonly heard: PgHeardOccurrences

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
  }

  private get skew(): number {
    return this.options.clockSkewMs ?? defaultClockSkewMs
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  async submit(request: IngestRequest): Promise<IngestOutcome> {
    const now = this.now()
    countUntrusted(request.alerts, now, this.skew, this.options.untrusted)
    try {
      const known = await this.knownDuplicates(request, now)
      if (known) return known
      for (let attempt = 1; ; attempt++) {
        try {
          const outcome = await inTransaction(
            this.pool,
            (client, [queued]) => this.write(client, request, this.now(), Number(queued?.rows[0]?.n)),
            openIngest(request),
          )
          this.options.health?.succeeded()
          if (outcome.kind === 'accepted' && outcome.queued > 0) this.options.onQueued?.()
          return outcome
        } catch (error) {
          const code = (error as { code?: string }).code
          if (attempt >= maxTries || code === undefined || !retried.has(code)) throw error
          this.options.retries?.inc({ code })
          // A little apart, at random: the transactions that collided do not collide again at once.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
        }
      }
    } catch (error) {
      this.options.health?.failed('ingest', error)
      throw error instanceof StoreError ? error : new StoreError('ingest request', { cause: error })
    }
  }

  /** Every request settled after its own commit: only the duplicates' hearing waits. */
  async flush(): Promise<void> {
    await this.heard.write().catch(() => {})
  }

  private async state(client: Client, alert: AlertEventInput): Promise<State> {
    const { identity, startsAt, status } = alert
    const rows = (await client.query<StateRow>(stateQuery, [identity, startsAt, status])).rows
    const range = rows.filter((row) => row.read === 'range')
    const state = identityState(
      range,
      startsAt,
      () => rows.find((row) => row.read === 'newest'),
      () => rows.find((row) => row.read === 'open'),
    )
    return { ...state, repeats: range.find((row) => row.repeats !== null)?.repeats ?? null }
  }

  /** Alertmanager's repeats, answered from committed reads without a transaction. */
  private async knownDuplicates(request: IngestRequest, now: number): Promise<IngestOutcome | undefined> {
    const events: IngestedEvent[] = []
    for (const alert of request.alerts) {
      const state = await this.state(this.pool, alert)
      const t = peekNotification(state, alert, now, this.skew)
      if (t.kind !== 'duplicate') return undefined
      events.push(await this.duplicate(this.pool, alert, t, state))
    }
    for (const event of events) this.heard.heard(event.incidentId, now)
    return accepted(events, 0)
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

  /** `queuedNow`: the cluster's queued items, read as the transaction began (openIngest). */
  private async write(
    client: pg.PoolClient,
    request: IngestRequest,
    now: number,
    queuedNow: number,
  ): Promise<IngestOutcome> {
    // D9: the capacity counts the cluster's queue, read inside the transaction.
    if (queuedNow >= this.options.queueCapacity) return { kind: 'queue_full' }
    const events: IngestedEvent[] = []
    let queued = 0
    for (const alert of request.alerts) {
      const eventId = uuidv7(now)
      const state = await this.state(client, alert)
      const { writes, ...applied } = planNotification(state, alert, { eventId, newId: uuidv7(now) }, now, this.skew)
      const t = applied.transition
      if (t.kind === 'duplicate') {
        events.push(await this.duplicate(client, alert, t, state))
        this.heard.heard(t.occurrence.id, now)
        continue
      }
      for (const w of writes) await applyWrite(client, w)
      // The event and, when it has a mail to make, its queue item: one statement.
      await client.query(insertEvent, [
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
        t.kind,
        applied.afterEventId,
        applied.mail !== null,
      ])
      if (applied.mail) queued++
      events.push(storedEvent(alert, eventId, applied))
    }
    return accepted(events, queued)
  }
}
