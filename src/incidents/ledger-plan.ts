import { type IdentityState, type MailKind, mailOf, type Transition, transition } from './lifecycle.js'

// What one notification writes to the incidents table, decided once for every storage
// adapter: the lifecycle's transition (lifecycle.ts) turned into a list of row changes.
// An adapter reads the identity's state, calls `planNotification`, and applies the writes
// in its ingest transaction (docs/design.md, "Incidents").

/** What the ledger needs of a notification besides its status and start. */
export interface LedgerNotification {
  status: 'firing' | 'resolved'
  startsAt: number
  identity: string
  fingerprint: string
  endsAt: number | null
  alertname: string
  instance: string
  severity: string
}

/** A new incident row; times are epoch ms. */
export interface IncidentInsert {
  id: string
  identity: string
  fingerprint: string
  startsAt: number
  alertname: string
  instance: string
  severity: string
  status: 'open' | 'resolved' | 'superseded'
  fired: 0 | 1
  firingEventId: string | null
  resolvedEventId: string | null
  lastMailEventId: string | null
  supersededBy: string | null
  /** When it was opened and first heard. */
  now: number
  endedAt: number | null
  closedAt: number | null
  startBelieved: 0 | 1
}

export type LedgerWrite =
  /** Closes `id` as superseded by `by`, if it is still open. */
  | { op: 'supersede'; id: string; by: string; endedAt: number; closedAt: number }
  /** Closes whatever occurrence of `identity` is open as superseded by `by`. */
  | { op: 'supersede_open'; identity: string; by: string; endedAt: number; closedAt: number }
  | { op: 'insert'; row: IncidentInsert }
  | { op: 'late_firing'; id: string; eventId: string; heardAt: number }
  | { op: 'refire'; id: string; eventId: string; heardAt: number }
  /** An expired occurrence heard firing again: open, without a mail. */
  | { op: 'reopen'; id: string; heardAt: number }
  | { op: 'resolve'; id: string; eventId: string; endedAt: number; now: number; mailEventId: string | null }

export interface Plan {
  transition: Transition
  incidentId: string
  /** The mail the event produces, if any: the worker makes it. */
  mail: MailKind | null
  /** The event whose mail this event's mail follows. */
  afterEventId: string | null
  /** An older open incident this notification closed as superseded. */
  superseded: string | null
  writes: LedgerWrite[]
}

/** `clockSkewMs`: how far ahead of its receipt a start or end is still believed. */
export const believed = (instant: number, now: number, clockSkewMs: number) => instant <= now + clockSkewMs

/**
 * When a resolution says its alert ended. An end before the start (Alertmanager's zero time)
 * or further ahead than the allowed skew (a clock gone wrong) is no end: the ledger records
 * the time the resolution arrived instead, and no occurrence is taken as merged into it.
 */
const endOf = (n: LedgerNotification, now: number, clockSkewMs: number) =>
  n.endsAt !== null && n.endsAt >= n.startsAt && believed(n.endsAt, now, clockSkewMs) ? n.endsAt : undefined

/** The transition alone, for a read that changes nothing (a duplicate's answer). */
export function peekNotification(
  state: IdentityState,
  n: LedgerNotification,
  now: number,
  clockSkewMs: number,
): Transition {
  return transition(state, {
    status: n.status,
    startsAt: n.startsAt,
    startBelieved: believed(n.startsAt, now, clockSkewMs),
    endsAt: n.status === 'resolved' ? endOf(n, now, clockSkewMs) : undefined,
  })
}

/**
 * The plan for notification `n`, stored as event `eventId` received at `now`; `newId` names
 * the incident it opens, if it opens one.
 */
export function planNotification(
  state: IdentityState,
  n: LedgerNotification,
  ids: { eventId: string; newId: string },
  now: number,
  clockSkewMs: number,
): Plan {
  const { eventId, newId } = ids
  const t = peekNotification(state, n, now, clockSkewMs)
  const base = { transition: t, mail: mailOf[t.kind], afterEventId: null, superseded: null }
  const endedAt = endOf(n, now, clockSkewMs) ?? now
  const startBelieved = believed(n.startsAt, now, clockSkewMs) ? 1 : 0
  type Columns = 'id' | 'identity' | 'fingerprint' | 'startsAt' | 'alertname' | 'instance' | 'severity'
  const row = (over: Omit<IncidentInsert, Columns | 'now' | 'startBelieved'>): LedgerWrite => ({
    op: 'insert' as const,
    row: {
      id: newId,
      identity: n.identity,
      fingerprint: n.fingerprint,
      startsAt: n.startsAt,
      alertname: n.alertname,
      instance: n.instance,
      severity: n.severity,
      now,
      startBelieved: startBelieved as 0 | 1,
      ...over,
    },
  })
  switch (t.kind) {
    case 'duplicate':
      return { ...base, incidentId: t.occurrence.id, writes: [] }
    case 'opened':
    case 'unmatched_resolution': {
      const firing = t.kind === 'opened'
      const writes: LedgerWrite[] = []
      if (t.supersedes) {
        // An occurrence closed by a start it cannot be ordered against ends when that was heard.
        const supersededAt = startBelieved && t.supersedes.startBelieved ? n.startsAt : now
        writes.push({ op: 'supersede', id: t.supersedes.id, by: newId, endedAt: supersededAt, closedAt: now })
      }
      writes.push(
        row({
          status: firing ? 'open' : 'resolved',
          fired: firing ? 1 : 0,
          firingEventId: firing ? eventId : null,
          resolvedEventId: firing ? null : eventId,
          lastMailEventId: firing ? eventId : null,
          supersededBy: null,
          endedAt: firing ? null : endedAt,
          closedAt: firing ? null : now,
        }),
      )
      return { ...base, incidentId: newId, superseded: t.supersedes?.id ?? null, writes }
    }
    case 'stale_firing':
      return {
        ...base,
        incidentId: newId,
        writes: [
          row({
            status: 'superseded',
            fired: 1,
            firingEventId: eventId,
            resolvedEventId: null,
            lastMailEventId: eventId,
            supersededBy: t.supersededBy.id,
            endedAt: t.supersededBy.startsAt,
            closedAt: now,
          }),
        ],
      }
    case 'late_firing':
      return {
        ...base,
        incidentId: t.occurrence.id,
        writes: [{ op: 'late_firing', id: t.occurrence.id, eventId, heardAt: now }],
      }
    case 'refired':
      return {
        ...base,
        incidentId: t.occurrence.id,
        afterEventId: t.occurrence.lastMailEventId,
        // A re-fire closes an open occurrence whose start was not believed (the one open at most).
        writes: [
          { op: 'supersede_open', identity: n.identity, by: t.occurrence.id, endedAt: now, closedAt: now },
          { op: 'refire', id: t.occurrence.id, eventId, heardAt: now },
        ],
      }
    case 'reopened':
      return {
        ...base,
        incidentId: t.occurrence.id,
        // As a re-fire, it closes an open occurrence whose start was not believed.
        writes: [
          { op: 'supersede_open', identity: n.identity, by: t.occurrence.id, endedAt: now, closedAt: now },
          { op: 'reopen', id: t.occurrence.id, heardAt: now },
        ],
      }
    case 'resolved':
    case 'resolved_merged':
    case 'resolved_superseded': {
      const mails = t.kind !== 'resolved_superseded'
      return {
        ...base,
        incidentId: t.occurrence.id,
        afterEventId: mails ? t.occurrence.lastMailEventId : null,
        writes: [{ op: 'resolve', id: t.occurrence.id, eventId, endedAt, now, mailEventId: mails ? eventId : null }],
      }
    }
  }
}
