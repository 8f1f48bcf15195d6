// The incident lifecycle (docs/design.md, "Incidents"), as one pure function: given what
// the store knows of an alert's occurrences and one notification, what happens. The store
// applies the answer inside the ingest transaction, so notifications take effect in the
// order they were acknowledged.

export type IncidentStatus = 'open' | 'resolved' | 'superseded' | 'expired'

/** One occurrence of an alert (identity + start instant) as the store holds it. */
export interface Occurrence {
  id: string
  startsAt: number
  status: IncidentStatus
  /** A firing notification was recorded for it. */
  fired: boolean
  /** Its first firing arrived after it had already ended (resolved or superseded). */
  firedLate: boolean
  /** The event whose mail the next mail of this occurrence follows. */
  lastMailEventId: string | null
  /** Its start was believed: not further ahead of its receipt than the clock skew allowed. */
  startBelieved: boolean
  /** When the service first heard of it: where an unbelieved start stands in. */
  openedAt: number
}

/** What the store knows of the identity, around the notification's start instant. */
export interface IdentityState {
  /** The occurrence with the notification's start instant. */
  same: Occurrence | undefined
  /** The occurrence with the latest believed start instant, if any. */
  newest: Occurrence | undefined
  /** The occurrence with the earliest believed start after the notification's, if any. */
  next: Occurrence | undefined
  /** The open occurrence, believed or not; read only when `same` is undefined or superseded. */
  open: Occurrence | undefined
}

export interface Notification {
  status: 'firing' | 'resolved'
  startsAt: number
  /**
   * The start lies no further ahead of the notification's receipt than the clock skew the
   * service allows. An unbelieved start (a sender's clock far ahead) never orders occurrences.
   */
  startBelieved: boolean
  /** A resolution's `endsAt`, unless it is no end (before the start, or further ahead than the clock skew allows). */
  endsAt?: number | undefined
}

/** The mail an event produces: a diagnosis report, a re-fire report or a recovery. */
export type MailKind = 'diagnosis' | 'refire' | 'recovery'

export type Transition =
  /** Nothing changes: a repeat, a re-sent resolution, an old firing of an ended occurrence. */
  | { kind: 'duplicate'; occurrence: Occurrence }
  /** A new occurrence opens; an older open one is closed as superseded. */
  | { kind: 'opened'; supersedes: Occurrence | undefined }
  /** A new occurrence that started before a known later one: it ended when that one began. */
  | { kind: 'stale_firing'; supersededBy: Occurrence }
  /** The first firing of an occurrence already resolved (the resolution came first). */
  | { kind: 'late_firing'; occurrence: Occurrence }
  /** Firing again after its resolution, same start: the occurrence re-opens. */
  | { kind: 'refired'; occurrence: Occurrence }
  /** The open (or expired) occurrence resolves. */
  | { kind: 'resolved'; occurrence: Occurrence }
  /**
   * A resolution with an earlier start than the open occurrence's, ending after it began:
   * Alertmanager merged the two and kept the earlier start. The open occurrence resolves.
   */
  | { kind: 'resolved_merged'; occurrence: Occurrence }
  /** A firing of an occurrence closed as expired: it was still firing, and opens again. */
  | { kind: 'reopened'; occurrence: Occurrence }
  /** The resolution of an occurrence already closed as superseded: its end is recorded. */
  | { kind: 'resolved_superseded'; occurrence: Occurrence }
  /** A resolution for an occurrence never seen firing; a newer one supersedes an older open one. */
  | { kind: 'unmatched_resolution'; supersedes: Occurrence | undefined }

export type TransitionKind = Transition['kind']

export const mailOf: Record<TransitionKind, MailKind | null> = {
  duplicate: null,
  opened: 'diagnosis',
  stale_firing: 'diagnosis',
  late_firing: 'diagnosis',
  refired: 'refire',
  resolved: 'recovery',
  resolved_merged: 'recovery',
  reopened: null,
  resolved_superseded: null,
  unmatched_resolution: null,
}

/** The open occurrence a believed start closes: an older one, or one whose start was not believed. */
const openOlder = (state: IdentityState, startsAt: number) =>
  state.open && (!state.open.startBelieved || state.open.startsAt < startsAt) ? state.open : undefined

/**
 * The occurrence a believed resolution ends under Alertmanager's merge rules (docs/design.md,
 * "Incidents"): one began strictly inside the resolution's activity, from its start to its
 * end, so Alertmanager held the two as one alert and kept the earlier start. An unbelieved
 * start stands in with its receipt.
 */
function merged(state: IdentityState, n: Notification): Occurrence | undefined {
  const { startsAt, endsAt } = n
  if (endsAt === undefined) return undefined
  const inside = (o: Occurrence | undefined) => {
    const began = o && (o.startBelieved ? o.startsAt : o.openedAt)
    return began !== undefined && startsAt < began && began < endsAt ? o : undefined
  }
  return inside(state.open) ?? inside(state.next)
}

/**
 * Alertmanager holds one alert per label set, so at most one occurrence of an identity is
 * open, and it is the newest: an occurrence that starts later ends the earlier one.
 */
export function transition(state: IdentityState, notification: Notification): Transition {
  if (notification.status === 'firing') return firingTransition(state, notification)
  const { same } = state
  if (same?.status === 'open' || same?.status === 'expired') return { kind: 'resolved', occurrence: same }
  if (same?.status === 'resolved') return { kind: 'duplicate', occurrence: same }
  const into = notification.startBelieved ? merged(state, notification) : undefined
  if (into?.status === 'open' || into?.status === 'expired') return { kind: 'resolved_merged', occurrence: into }
  const ended = same ?? (into?.status === 'superseded' ? into : undefined)
  if (ended) return { kind: 'resolved_superseded', occurrence: ended }
  // What a merged resolution already resolved: this is its copy.
  if (into) return { kind: 'duplicate', occurrence: into }
  const supersedes = notification.startBelieved ? openOlder(state, notification.startsAt) : undefined
  return { kind: 'unmatched_resolution', supersedes }
}

function firingTransition(state: IdentityState, notification: Notification): Transition {
  const { same } = state
  if (!same && !notification.startBelieved) {
    // A start from a clock far ahead: while the alert is open it is that occurrence's copy,
    // otherwise it opens one that any believed start will close.
    if (state.open) return { kind: 'duplicate', occurrence: state.open }
    return { kind: 'opened', supersedes: undefined }
  }
  if (!same) {
    if (state.next) return { kind: 'stale_firing', supersededBy: state.next }
    return { kind: 'opened', supersedes: openOlder(state, notification.startsAt) }
  }
  const newest = state.newest?.id === same.id
  // Expired only because it went unheard: it still fires.
  if (same.status === 'expired' && newest) return { kind: 'reopened', occurrence: same }
  if (same.status === 'resolved' && !same.fired) return { kind: 'late_firing', occurrence: same }
  // A re-fire needs a firing seen before the resolution: copies of a late firing repeat it.
  if (same.status === 'resolved' && !same.firedLate && newest) return { kind: 'refired', occurrence: same }
  return { kind: 'duplicate', occurrence: same }
}
