import { StoreError } from '../../errors.js'
import { redactAlert, redactGroupKey } from '../../evidence/redact-alert.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import type { Transition } from '../../incidents/lifecycle.js'
import { uuidv7 } from '../ids.js'
import {
  type AlertEventInput,
  type AlertStatus,
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
import { type Db, walSync } from './database.js'
import { type DuplicateAnswer, DuplicateAnswers } from './duplicate-answers.js'
import { HeardOccurrences } from './heard-occurrences.js'
import { IncidentLedger } from './incident-ledger.js'
import type { WalSync } from './wal-sync.js'
import { type StorageHealthPort, WriteBatcher } from './write-batcher.js'

export type { AlertEventInput, AlertStatus, IngestedEvent, IngestOutcome, IngestRequest }

/** The ingest counters (src/metrics.ts). */
export interface EventWriterCounters {
  commits?: { inc: () => void }
  /** Counts the timestamps not believed, by field. */
  untrusted?: { inc: (labels: { field: 'startsAt' | 'endsAt' }) => void }
}

/**
 * Stores webhook requests durably with group commit (WriteBatcher): requests that arrive
 * while the event loop is busy are written together in one IMMEDIATE transaction, each
 * request in its own savepoint so that one failure loses only that request. Every promise
 * settles only after the commit and the WAL sync that covers it (wal-sync.ts): a 202 means
 * the event is on stable storage.
 */
export class EventWriter implements IngestStore {
  private readonly batcher: WriteBatcher
  private readonly ledger: IncidentLedger
  private readonly answers: DuplicateAnswers
  private readonly statements
  private readonly wal: WalSync
  /** When each occurrence was last heard, its duplicates included (retention reads it). */
  readonly heard: HeardOccurrences

  constructor(
    db: Db,
    private readonly options: {
      queueCapacity: number
      /** How far ahead of its receipt a start is still believed (DIAG_CLOCK_SKEW_SECONDS); 5 min by default. */
      clockSkewMs?: number
      now?: () => number
      /** The optional masking of personal data (DIAG_REDACT_*), for what the alert carries. */
      redaction?: RedactionOptions
      /** Counts the timestamps not believed, by field. */
      untrusted?: { inc: (labels: { field: 'startsAt' | 'endsAt' }) => void }
      commits?: { inc: () => void }
      /** Called after each commit that queued events (wakes the worker). */
      onQueued?: () => void
      health?: StorageHealthPort
    },
  ) {
    this.wal = walSync(db)
    this.ledger = new IncidentLedger(db, options.clockSkewMs ?? defaultClockSkewMs)
    this.heard = new HeardOccurrences(db)
    this.answers = DuplicateAnswers.of(db)
    this.statements = {
      queuedCount: db.prepare("SELECT items FROM queue_depth WHERE status = 'queued'").pluck(),
      insertEvent: db.prepare(`INSERT INTO events (id, identity, fingerprint, status, starts_at, ends_at, starts_ms,
        ends_ms, alertname, instance, severity, alert, receiver, group_key, principal, received_at, incident_id,
        transition, after_event_id)
        VALUES (@id, @identity, @claimedFingerprint, @status, @startsAtText, @endsAtText, @startsAt, @endsAt,
        @alertname, @instance, @severity, @alert, @receiver, @groupKey, @principal, @receivedAt, @incidentId,
        @transition, @afterEventId)`),
      enqueue: db.prepare(
        'INSERT INTO queue_items (event_id, available_at, created_at, updated_at) VALUES (?, ?, ?, ?)',
      ),
    }
    this.batcher = new WriteBatcher(db, {
      name: 'ingest',
      ...(options.health ? { health: options.health } : {}),
      onCommit: (outcomes) => {
        options.commits?.inc()
        if ((outcomes as IngestOutcome[]).some((o) => o.kind === 'accepted' && o.queued > 0)) options.onQueued?.()
      },
    })
  }

  /** Resolves after the request's events are committed (or rejects with a StoreError). */
  submit(request: IngestRequest): Promise<IngestOutcome> {
    countUntrusted(request.alerts, this.now(), this.options.clockSkewMs ?? defaultClockSkewMs, this.options.untrusted)
    const known = this.knownDuplicates(request)
    // The state it was read from may be committed but not yet synced: the answer waits for
    // that (at once when everything committed is synced, as when nothing is being written).
    if (known) return this.wal.durable().then(() => known)
    return this.batcher
      .run(() => this.admit(request))
      .catch((error: unknown) => {
        throw error instanceof StoreError ? error : new StoreError('ingest request', { cause: error })
      })
  }

  /** Writes everything pending now; also used on shutdown before the database closes. */
  flush(): void {
    this.batcher.flush()
    this.heard.write()
  }

  /**
   * D9: a request is admitted while fewer than `capacity` events wait; an admitted request
   * may carry several alerts and so take the queue past it. The count is read inside the
   * batch's transaction, so it includes the requests admitted before this one.
   */
  private admit(request: IngestRequest): IngestOutcome {
    if (Number(this.statements.queuedCount.get()) >= this.options.queueCapacity) return { kind: 'queue_full' }
    return this.writeRequest(request, this.now())
  }

  /**
   * Alertmanager re-sends every alert of a group on each repeat interval, so most traffic
   * is duplicates: notifications that change nothing in their incident's current state.
   * When every alert of the request is one, the answer needs no write, no batch and no
   * wait; it is ordered before any request still waiting for its commit.
   */
  private knownDuplicates(request: IngestRequest): IngestOutcome | undefined {
    const events: IngestedEvent[] = []
    const now = this.now()
    for (const alert of request.alerts) {
      const { identity, startsAt, status } = alert
      let answer = this.answers.get(identity, startsAt, status)
      if (!answer) {
        const t = this.ledger.peek(alert, now)
        if (t.kind !== 'duplicate') return undefined
        answer = this.repeatedBy(alert, t)
        // Read outside any transaction: committed state, safe to remember.
        this.answers.remember(identity, startsAt, status, answer)
      }
      events.push(duplicateEvent(alert, answer))
    }
    for (const event of events) this.heard.heard(event.incidentId, now, request)
    return accepted(events, 0)
  }

  /** For a notification that changes nothing: its incident and the stored event it repeats. */
  private repeatedBy(alert: AlertEventInput, t: Extract<Transition, { kind: 'duplicate' }>): DuplicateAnswer {
    return { incidentId: t.occurrence.id, eventId: this.ledger.repeated(t, alert.status) }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  private writeRequest(request: IngestRequest, now: number): IngestOutcome {
    const events: IngestedEvent[] = []
    let queued = 0
    for (const alert of request.alerts) {
      const eventId = uuidv7(now)
      // In the IMMEDIATE transaction no other writer changes the incident between this
      // read and the event's insert.
      const applied = this.ledger.apply(alert, eventId, now)
      const t = applied.transition
      if (t.kind === 'duplicate') {
        events.push(duplicateEvent(alert, this.repeatedBy(alert, t)))
        this.heard.heard(t.occurrence.id, now, request)
        continue
      }
      // Named one by one: spreading `alert` first made this object cost microseconds.
      this.statements.insertEvent.run({
        id: eventId,
        identity: alert.identity,
        claimedFingerprint: alert.claimedFingerprint,
        status: alert.status,
        startsAtText: alert.startsAtText,
        endsAtText: alert.endsAtText,
        startsAt: alert.startsAt,
        endsAt: alert.endsAt,
        alertname: alert.alertname,
        instance: alert.instance,
        severity: alert.severity,
        // Redacted here, for stored notifications only: a duplicate costs nothing more.
        alert: JSON.stringify(redactAlert(alert.alert, this.options.redaction)),
        receiver: request.receiver,
        groupKey: redactGroupKey(request.groupKey, this.options.redaction),
        principal: request.principal,
        receivedAt: now,
        incidentId: applied.incidentId,
        transition: t.kind,
        afterEventId: applied.afterEventId,
      })
      // Only an event with a mail to make goes to the worker; the others are complete.
      if (applied.mail) {
        this.statements.enqueue.run(eventId, now, now, now)
        queued++
      }
      events.push(storedEvent(alert, eventId, applied))
    }
    return accepted(events, queued)
  }
}
