import { randomUUID } from 'node:crypto'
import { StoreError } from '../errors.js'
import type { Db } from './database.js'

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
  labels: Record<string, string>
  annotations: Record<string, string>
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

interface Pending {
  request: IngestRequest
  resolve: (outcome: IngestOutcome) => void
  reject: (error: unknown) => void
}

/**
 * Stores webhook requests durably with group commit. Requests that arrive while the event
 * loop is busy are written together in one IMMEDIATE transaction (one fsync under
 * synchronous=FULL), each request in its own savepoint so that one failure loses only that
 * request. Every promise settles only after the commit: a 202 means the event is on disk.
 */
export class EventWriter {
  private pending: Pending[] = []
  private scheduled = false
  private readonly writeBatch: (batch: Pending[]) => Array<IngestOutcome | Error>
  private readonly statements

  constructor(
    db: Db,
    private readonly options: { queueCapacity: number; now?: () => number },
  ) {
    this.statements = {
      queuedCount: db
        .prepare("SELECT count(*) FROM (SELECT 1 FROM queue_items WHERE status = 'queued' LIMIT ?)")
        .pluck(),
      insertKey: db.prepare('INSERT INTO dedup_keys (identity, starts_at, status, event_id) VALUES (?, ?, ?, ?)'),
      existingEvent: db
        .prepare('SELECT event_id FROM dedup_keys WHERE identity = ? AND starts_at = ? AND status = ?')
        .pluck(),
      insertEvent: db.prepare(`INSERT INTO events (id, identity, fingerprint, status, starts_at, ends_at,
        alertname, instance, severity, labels, annotations, alert, receiver, group_key, principal, received_at)
        VALUES (@id, @identity, @fingerprint, @status, @startsAt, @endsAt, @alertname, @instance, @severity,
        @labels, @annotations, @alert, @receiver, @groupKey, @principal, @receivedAt)`),
      enqueue: db.prepare(
        'INSERT INTO queue_items (event_id, available_at, created_at, updated_at) VALUES (?, ?, ?, ?)',
      ),
    }
    const writeOne = db.transaction((request: IngestRequest, now: number) => this.writeRequest(request, now))
    this.writeBatch = db.transaction((batch: Pending[]) => {
      const now = this.now()
      let queued = Number(this.statements.queuedCount.get(this.options.queueCapacity))
      return batch.map(({ request }) => {
        // D9a: a request is admitted while fewer than `capacity` events wait; an admitted
        // request may carry several alerts and so take the queue past it.
        if (queued >= this.options.queueCapacity) return { kind: 'queue_full' } as const
        try {
          const outcome = writeOne(request, now)
          if (outcome.kind === 'accepted') queued += outcome.queued
          return outcome
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error))
        }
      })
    }).immediate
  }

  /** Resolves after the request's events are committed (or rejects with a StoreError). */
  submit(request: IngestRequest): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.pending.push({ request, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => this.flush())
      }
    })
  }

  /** Writes everything pending now; also used on shutdown before the database closes. */
  flush(): void {
    this.scheduled = false
    const batch = this.pending
    this.pending = []
    if (batch.length === 0) return
    let results: Array<IngestOutcome | Error>
    try {
      results = this.writeBatch(batch)
    } catch (error) {
      for (const item of batch) item.reject(new StoreError('ingest batch', { cause: error }))
      return
    }
    batch.forEach((item, index) => {
      const result = results[index]
      if (result === undefined || result instanceof Error) {
        item.reject(new StoreError('ingest request', { cause: result }))
      } else item.resolve(result)
    })
  }

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  private writeRequest(request: IngestRequest, now: number): IngestOutcome {
    const events: IngestedEvent[] = []
    for (const alert of request.alerts) {
      // Inside the IMMEDIATE transaction this process is the only writer, so the look-up
      // and the inserts below cannot race with another request.
      const existing = this.statements.existingEvent.get(alert.identity, alert.startsAt, alert.status)
      if (existing !== undefined) {
        events.push({ eventId: String(existing), fingerprint: alert.identity, status: alert.status, duplicate: true })
        continue
      }
      const eventId = randomUUID()
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
        labels: JSON.stringify(alert.labels),
        annotations: JSON.stringify(alert.annotations),
        alert: JSON.stringify(alert.alert),
        receiver: request.receiver,
        groupKey: request.groupKey,
        principal: request.principal,
        receivedAt: now,
      })
      this.statements.insertKey.run(alert.identity, alert.startsAt, alert.status, eventId)
      this.statements.enqueue.run(eventId, now, now, now)
      events.push({ eventId, fingerprint: alert.identity, status: alert.status, duplicate: false })
    }
    const duplicates = events.filter((event) => event.duplicate).length
    return { kind: 'accepted', received: events.length, queued: events.length - duplicates, duplicates, events }
  }
}
