import type { LedgerNotification } from '../incidents/ledger-plan.js'
import type { TransitionKind } from '../incidents/lifecycle.js'

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
    heard(incidentId: string, at: number): void
    start(everyMs: number, onError: (error: unknown) => void): void
    stop(): void
  }
}
