import type { OutgoingMail } from '../report/mail-transport.js'

// What the worker needs from storage and the queue, implemented in store/ and queue/ and
// wired in service.ts, so that data keeps flowing one way (STYLE.md).

export interface StoredEvent {
  id: string
  identity: string
  fingerprint: string | null
  status: 'firing' | 'resolved'
  startsAt: string
  alertname: string
  instance: string
  severity: string
  alert: { labels: Record<string, string>; annotations: Record<string, string>; generatorURL?: string }
  receivedAt: number
}

export interface IncidentRecord {
  id: string
  identity: string
  startsAt: string
  status: 'open' | 'resolved'
  firingEventId: string
  openedAt: number
  headline: { branch: string; ruleName: string; category: string; classification: string } | null
}

export interface WorkerStore {
  event(id: string): StoredEvent | undefined
  hasResult(eventId: string): boolean
  /** The incident of a firing event (D13: identity + startsAt), created on first sight. */
  openIncident(event: StoredEvent, now: number): Promise<IncidentRecord>
  /**
   * D13: the open incident of the identity, the same startsAt first, else the latest;
   * ordered after every openIncident asked for before it.
   */
  correlate(identity: string, startsAt: string): Promise<IncidentRecord | undefined>
  /**
   * One transaction: the result, the incident headline (diagnosis) or its resolution
   * (recovery), the outbox row, and `complete` (the queue item done). Resolves once
   * committed; false when the event already had a result.
   */
  commit(input: {
    eventId: string
    incidentId: string | null
    kind: 'diagnosis' | 'recovery' | 'uncorrelated'
    result: unknown
    headline?: IncidentRecord['headline']
    mail?: OutgoingMail
    complete?: () => void
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
  renew(lease: Lease): boolean
  complete(lease: Lease): boolean
  retry(lease: Lease, delayMs: number, error: string): boolean
  fail(lease: Lease, error: string): boolean
  recoverExpired(): { recovered: number; exhausted: number }
}
