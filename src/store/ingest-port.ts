import { believed, type LedgerNotification, type Plan } from '../incidents/ledger-plan.js'
import type { TransitionKind } from '../incidents/lifecycle.js'
import type { Sender } from './duplicate-tally.js'

// What the webhook needs of storage, whichever database holds it (docs/design.md,
// "Storage"): SQLite (store/sqlite/event-writer.ts) and PostgreSQL (store/postgres/event-writer.ts)
// implement it, and test/store/ holds both to one conformance suite.

export type AlertStatus = 'firing' | 'resolved'

/** One alert of a webhook, ready to store: identity and instants already computed. */
export interface AlertEventInput extends LedgerNotification {
  /** The fingerprint the sender claimed, if any (compared, never trusted). */
  claimedFingerprint: string | null
  /** startsAt and endsAt as sent. */
  startsAtText: string
  endsAtText: string | null
  /** The alert object as received, labels and annotations included (stored redacted). */
  alert: { labels: Record<string, string>; annotations?: Record<string, string>; generatorURL?: string }
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
  /** What the notification did to its incident (incidents/lifecycle.ts). */
  transition: TransitionKind
  incidentId: string
  /** An older open incident of the same alert that this one closed as superseded. */
  superseded?: string
}

export type IngestOutcome =
  | { kind: 'accepted'; received: number; queued: number; duplicates: number; events: IngestedEvent[] }
  | { kind: 'queue_full' }

/** Storage of webhook requests: a promise settles only after its events are committed. */
export interface IngestStore {
  submit(request: IngestRequest): Promise<IngestOutcome>
  /** Writes whatever waits in memory; on shutdown, before the storage closes. */
  flush(): void | Promise<void>
  /** When each occurrence was last heard, its duplicates included (retention reads it). */
  readonly heard: {
    /** `sender`: the hearing is a duplicate that sender's request carried, counted for the timeline. */
    heard(incidentId: string, at: number, sender?: Sender): void
    start(everyMs: number, onError: (error: unknown) => void): void
    stop(): void
  }
}

/** DIAG_CLOCK_SKEW_SECONDS's default: five minutes. */
export const defaultClockSkewMs = 300_000

/**
 * Counts the timestamps not believed, by field: said, not refused, since a 4xx would make
 * Alertmanager drop the whole group for good (docs/design.md, "Incidents").
 */
export function countUntrusted(
  alerts: readonly AlertEventInput[],
  now: number,
  clockSkewMs: number,
  counter: { inc: (labels: { field: 'startsAt' | 'endsAt' }) => void } | undefined,
): void {
  if (!counter) return
  for (const alert of alerts) {
    if (!believed(alert.startsAt, now, clockSkewMs)) counter.inc({ field: 'startsAt' })
    if (alert.endsAt !== null && alert.status === 'resolved' && !believed(alert.endsAt, now, clockSkewMs)) {
      counter.inc({ field: 'endsAt' })
    }
  }
}

/** The answer for a stored notification: its event and what it did. */
export function storedEvent(alert: AlertEventInput, eventId: string, applied: Omit<Plan, 'writes'>): IngestedEvent {
  return {
    eventId,
    fingerprint: alert.fingerprint,
    status: alert.status,
    duplicate: false,
    transition: applied.transition.kind,
    incidentId: applied.incidentId,
    ...(applied.superseded ? { superseded: applied.superseded } : {}),
  }
}

/** The answer for a notification that changes nothing: the stored event it repeats. */
export function duplicateEvent(alert: AlertEventInput, answer: { eventId: string; incidentId: string }): IngestedEvent {
  // Spelled out: on Node 20, `{ ...answer, more }` costs microseconds (docs/performance.md).
  return {
    eventId: answer.eventId,
    incidentId: answer.incidentId,
    fingerprint: alert.fingerprint,
    status: alert.status,
    duplicate: true,
    transition: 'duplicate',
  }
}

/** The 202's body from the request's events. */
export function accepted(events: IngestedEvent[], queued: number): IngestOutcome {
  const duplicates = events.filter((event) => event.duplicate).length
  return { kind: 'accepted', received: events.length, queued, duplicates, events }
}
