import type { IncidentStatus, TransitionKind } from '../incidents/lifecycle.js'
import type { OutgoingMail } from '../mail/outgoing-mail.js'
import type { EncodedBundle } from '../rules/bundle/evidence-bundle.js'

// What the worker needs from storage and the queue, implemented in store/ and queue/ and
// wired in service.ts, so that data keeps flowing one way (CONTRIBUTING.md).

export interface StoredEvent {
  id: string
  status: 'firing' | 'resolved'
  /** startsAt as sent, and as an instant (epoch ms). */
  startsAtText: string
  startsAt: number
  alertname: string
  instance: string
  severity: string
  alert: { labels: Record<string, string>; annotations: Record<string, string>; generatorURL?: string }
  receivedAt: number
  incidentId: string
  /** What this event did to its incident when it was acknowledged. */
  transition: TransitionKind
  /** The event whose mail this event's mail must follow (docs/design.md, "Incidents"). */
  afterEventId: string | null
}

export interface Headline {
  branch: string
  ruleName: string
  category: string
  classification: string
  /** The primary finding's confidence, when the diagnosis recorded it (a filter of the console's list). */
  confidence?: string | null
}

export interface IncidentRecord {
  id: string
  /** Alertmanager's fingerprint of the labels, computed by the service. */
  fingerprint: string
  startsAt: number
  status: IncidentStatus
  /** Epoch ms: endsAt of its resolution, or the start of the occurrence that superseded it. */
  endedAt: number | null
  firingEventId: string | null
  headline: Headline | null
  /** When the service first heard of it (epoch ms). */
  openedAt: number
  /** Its start was believed; otherwise durations and the evidence window count from `openedAt`. */
  startBelieved: boolean
}

/** Where the event an event follows stands: its result committed, still in the queue, or neither. */
export type PredecessorState = 'done' | 'waiting' | 'gone'

/** A synchronous adapter (SQLite) answers at once, an asynchronous one (PostgreSQL) later. */
export type Awaitable<T> = T | Promise<T>

/** What the worker reads of an event before it processes it. */
export interface EventToProcess {
  event: StoredEvent
  /** It already has a result: processed before (by this replica or another). */
  processed: boolean
  /** Its incident; undefined when retention removed it. */
  incident: IncidentRecord | undefined
}

export interface WorkerStore {
  /** The event, whether it has a result, and its incident, in one read (one round trip on PostgreSQL). */
  load(eventId: string): Awaitable<EventToProcess | undefined>
  incident(id: string): Awaitable<IncidentRecord | undefined>
  predecessor(eventId: string): Awaitable<PredecessorState>
  /**
   * One transaction: the result, the incident headline (a diagnosis), the evidence bundle,
   * the outbox row, and `lease`'s queue item done (compared with its token). Resolves once
   * committed; false when the event already had a result (then the lease is left as it was).
   */
  commit(input: {
    eventId: string
    incidentId: string
    kind: 'diagnosis' | 'recovery'
    result: unknown
    headline?: Headline
    /** A diagnosis's evidence bundle (docs/design.md, "Stored evidence"). */
    bundle?: EncodedBundle
    mail?: OutgoingMail
    lease?: Lease
    now: number
  }): Promise<boolean>
}

export interface Lease {
  itemId: number
  eventId: string
  token: string
  /** Processing attempts including this one. */
  attempts: number
}

export interface QueuePort {
  /** Up to `limit` due events, oldest first, claimed in one commit; resolves once committed. */
  claimMany(limit: number): Promise<Lease[]>
  renew(lease: Lease): Awaitable<boolean>
  complete(lease: Lease): Awaitable<boolean>
  retry(lease: Lease, delayMs: number, error: string): Awaitable<boolean>
  /** Back to the queue, due after `delayMs`, without spending an attempt. */
  defer(lease: Lease, delayMs: number, reason: string): Awaitable<boolean>
  fail(lease: Lease, error: string): Awaitable<boolean>
  recoverExpired(): Awaitable<{ recovered: number; exhausted: number }>
}

/** What processing one event came to: a line for the log, or "not yet, try again later". */
export type ProcessOutcome = string | { deferMs: number; reason: string }
