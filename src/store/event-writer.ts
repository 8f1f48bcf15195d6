import { StoreError } from '../errors.js'
import type { Db } from './database.js'
import { uuidv7 } from './ids.js'
import { WriteBatcher } from './write-batcher.js'

export type AlertStatus = 'firing' | 'resolved'

/** One alert of a webhook, ready to store (D11: one event per alert). */
export interface AlertEventInput {
  identity: string
  fingerprint: string | null
  status: AlertStatus
  startsAt: string
  endsAt: string | null
  alertname: string
  instance: string
  severity: string
  /** The alert object as received, labels and annotations included. */
  alert: unknown
}

export interface IngestRequest {
  receiver: string
  groupKey: string
  principal: string
  alerts: AlertEventInput[]
}

export interface IngestedEvent {
  eventId: string
  fingerprint: string
  status: AlertStatus
  duplicate: boolean
}

export type IngestOutcome =
  | { kind: 'accepted'; received: number; queued: number; duplicates: number; events: IngestedEvent[] }
  | { kind: 'queue_full' }

/**
 * Stores webhook requests durably with group commit (WriteBatcher): requests that arrive
 * while the event loop is busy are written together in one IMMEDIATE transaction (one
 * fsync under synchronous=FULL), each request in its own savepoint so that one failure
 * loses only that request. Every promise settles only after the commit: a 202 means the
 * event is on disk.
 */
export class EventWriter {
  private readonly batcher: WriteBatcher
  private readonly statements

  constructor(
    db: Db,
    private readonly options: {
      queueCapacity: number
      now?: () => number
      commits?: { inc: () => void }
      /** Called after each commit that queued events (wakes the worker). */
      onQueued?: () => void
    },
  ) {
    this.statements = {
      queuedCount: db.prepare("SELECT items FROM queue_depth WHERE status = 'queued'").pluck(),
      claimKey: db.prepare(
        'INSERT OR IGNORE INTO dedup_keys (identity, starts_at, status, event_id) VALUES (?, ?, ?, ?)',
      ),
      existingEvent: db
        .prepare('SELECT event_id FROM dedup_keys WHERE identity = ? AND starts_at = ? AND status = ?')
        .pluck(),
      insertEvent: db.prepare(`INSERT INTO events (id, identity, fingerprint, status, starts_at, ends_at,
        alertname, instance, severity, alert, receiver, group_key, principal, received_at)
        VALUES (@id, @identity, @fingerprint, @status, @startsAt, @endsAt, @alertname, @instance, @severity,
        @alert, @receiver, @groupKey, @principal, @receivedAt)`),
      enqueue: db.prepare(
        'INSERT INTO queue_items (event_id, available_at, created_at, updated_at) VALUES (?, ?, ?, ?)',
      ),
    }
    this.batcher = new WriteBatcher(db, {
      name: 'ingest',
      onCommit: (outcomes) => {
        options.commits?.inc()
        if ((outcomes as IngestOutcome[]).some((o) => o.kind === 'accepted' && o.queued > 0)) options.onQueued?.()
      },
    })
  }

  /** Resolves after the request's events are committed (or rejects with a StoreError). */
  submit(request: IngestRequest): Promise<IngestOutcome> {
    const known = this.knownDuplicates(request)
    if (known) return Promise.resolve(known)
    return this.batcher
      .run(() => this.admit(request))
      .catch((error: unknown) => {
        throw error instanceof StoreError ? error : new StoreError('ingest request', { cause: error })
      })
  }

  /** Writes everything pending now; also used on shutdown before the database closes. */
  flush(): void {
    this.batcher.flush()
  }

  /**
   * D9a: a request is admitted while fewer than `capacity` events wait; an admitted request
   * may carry several alerts and so take the queue past it. The count is read inside the
   * batch's transaction, so it includes the requests admitted before this one.
   */
  private admit(request: IngestRequest): IngestOutcome {
    if (Number(this.statements.queuedCount.get()) >= this.options.queueCapacity) return { kind: 'queue_full' }
    return this.writeRequest(request, this.now())
  }

  /**
   * Alertmanager re-sends every alert of a group on each repeat interval, so most traffic
   * is duplicates. A de-dup key, once committed, never changes: when every alert of the
   * request already has one, the answer needs no write, no batch and no wait.
   */
  private knownDuplicates(request: IngestRequest): IngestOutcome | undefined {
    const events: IngestedEvent[] = []
    for (const alert of request.alerts) {
      const existing = this.statements.existingEvent.get(alert.identity, alert.startsAt, alert.status)
      if (existing === undefined) return undefined
      events.push({ eventId: String(existing), fingerprint: alert.identity, status: alert.status, duplicate: true })
    }
    return { kind: 'accepted', received: events.length, queued: 0, duplicates: events.length, events }
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  private writeRequest(request: IngestRequest, now: number): IngestOutcome {
    const events: IngestedEvent[] = []
    for (const alert of request.alerts) {
      const eventId = uuidv7(now)
      // The key decides: in the IMMEDIATE transaction no other writer can claim it between
      // this insert and the event's, and the deferred foreign key is checked at commit.
      if (this.statements.claimKey.run(alert.identity, alert.startsAt, alert.status, eventId).changes === 0) {
        const existing = String(this.statements.existingEvent.get(alert.identity, alert.startsAt, alert.status))
        events.push({ eventId: existing, fingerprint: alert.identity, status: alert.status, duplicate: true })
        continue
      }
      this.statements.insertEvent.run({
        id: eventId,
        identity: alert.identity,
        fingerprint: alert.fingerprint,
        status: alert.status,
        startsAt: alert.startsAt,
        endsAt: alert.endsAt,
        alertname: alert.alertname,
        instance: alert.instance,
        severity: alert.severity,
        alert: JSON.stringify(alert.alert),
        receiver: request.receiver,
        groupKey: request.groupKey,
        principal: request.principal,
        receivedAt: now,
      })
      this.statements.enqueue.run(eventId, now, now, now)
      events.push({ eventId, fingerprint: alert.identity, status: alert.status, duplicate: false })
    }
    const duplicates = events.filter((event) => event.duplicate).length
    return { kind: 'accepted', received: events.length, queued: events.length - duplicates, duplicates, events }
  }
}
