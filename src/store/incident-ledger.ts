import {
  type IdentityState,
  type IncidentStatus,
  type MailKind,
  mailOf,
  type Notification,
  type Occurrence,
  type Transition,
  transition,
} from '../incidents/lifecycle.js'
import type { Db } from './database.js'
import { DuplicateAnswers } from './duplicate-answers.js'
import { uuidv7 } from './ids.js'

interface IncidentRow {
  id: string
  starts_at: number
  status: IncidentStatus
  fired: number
  fired_late: number
  last_mail_event_id: string | null
  start_believed: number
}

const columns = 'id, starts_at, status, fired, fired_late, last_mail_event_id, start_believed'

const occurrence = (row: IncidentRow | undefined): Occurrence | undefined =>
  row && {
    id: row.id,
    startsAt: row.starts_at,
    status: row.status,
    fired: row.fired === 1,
    firedLate: row.fired_late === 1,
    lastMailEventId: row.last_mail_event_id,
    startBelieved: row.start_believed === 1,
  }

/** What the ledger needs of a notification besides its status and start. */
export interface LedgerNotification extends Omit<Notification, 'startBelieved'> {
  identity: string
  fingerprint: string
  endsAt: number | null
  alertname: string
  instance: string
  severity: string
}

export interface Applied {
  transition: Transition
  incidentId: string
  /** The mail the event produces, if any: the worker makes it. */
  mail: MailKind | null
  /** The event whose mail this event's mail follows. */
  afterEventId: string | null
  /** An older open incident this notification closed as superseded. */
  superseded: string | null
}

/**
 * The incidents table seen through the lifecycle (incidents/lifecycle.ts): reads the state
 * of an alert's identity and applies one notification to it. Called inside the ingest
 * transaction, so each notification sees every one acknowledged before it.
 */
export class IncidentLedger {
  private readonly s
  private readonly answers: DuplicateAnswers

  /** `clockSkewMs`: how far ahead of its receipt a start or end is still believed. */
  constructor(
    db: Db,
    private readonly clockSkewMs: number,
  ) {
    this.answers = DuplicateAnswers.of(db)
    this.s = {
      // The occurrence at the start and the next believed one after it, in one index range.
      atOrAfter: db.prepare<{ identity: string; startsAt: number }, IncidentRow>(
        `SELECT ${columns} FROM incidents WHERE identity = @identity AND starts_at >= @startsAt
        AND (start_believed = 1 OR starts_at = @startsAt) ORDER BY starts_at LIMIT 2`,
      ),
      newest: db.prepare<[string], IncidentRow>(
        `SELECT ${columns} FROM incidents WHERE identity = ? AND start_believed = 1 ORDER BY starts_at DESC LIMIT 1`,
      ),
      open: db.prepare<[string], IncidentRow>(
        `SELECT ${columns} FROM incidents WHERE identity = ? AND status = 'open'`,
      ),
      latestEvent: db
        .prepare<[string, string], string>(
          'SELECT id FROM events WHERE incident_id = ? ORDER BY status = ? DESC, received_at DESC, id DESC LIMIT 1',
        )
        .pluck(),
      insert: db.prepare(`INSERT INTO incidents (id, identity, fingerprint, starts_at, alertname, instance, severity,
        status, fired, firing_event_id, resolved_event_id, last_mail_event_id, superseded_by, opened_at, ended_at, closed_at,
        start_believed, last_heard_at)
        VALUES (@id, @identity, @fingerprint, @startsAt, @alertname, @instance, @severity, @status, @fired,
        @firingEventId, @resolvedEventId, @lastMailEventId, @supersededBy, @now, @endedAt, @closedAt, @startBelieved, @now)`),
      supersede: db.prepare(
        "UPDATE incidents SET status = 'superseded', superseded_by = ?, ended_at = ?, closed_at = ? WHERE id = ? AND status = 'open'",
      ),
      lateFiring: db.prepare(
        'UPDATE incidents SET fired = 1, fired_late = 1, firing_event_id = ?, last_mail_event_id = ?, last_heard_at = ? WHERE id = ?',
      ),
      refire:
        db.prepare(`UPDATE incidents SET status = 'open', refires = refires + 1, ended_at = NULL, closed_at = NULL,
        last_mail_event_id = ?, last_heard_at = ? WHERE id = ?`),
      // A re-fire closes an open occurrence whose start was not believed (the one open at most).
      supersedeOpen: db.prepare(
        "UPDATE incidents SET status = 'superseded', superseded_by = ?, ended_at = ?, closed_at = ? WHERE identity = ? AND status = 'open'",
      ),
      resolve: db.prepare(`UPDATE incidents SET status = 'resolved', resolved_event_id = @eventId, ended_at = @endedAt,
        closed_at = @now, last_heard_at = @now, last_mail_event_id = coalesce(@mailEventId, last_mail_event_id)
        WHERE id = @id`),
    }
  }

  /** The state of `identity` around `startsAt`, as lifecycle.transition reads it. */
  state(identity: string, startsAt: number): IdentityState {
    const [first, second] = this.s.atOrAfter.all({ identity, startsAt })
    const same = first?.starts_at === startsAt ? first : undefined
    const next = same ? second : first
    // Without a later occurrence, the newest is the one at the start (or the one before it).
    const newest = next || !same?.start_believed ? this.s.newest.get(identity) : same
    const open = same ? undefined : this.s.open.get(identity)
    return { same: occurrence(same), newest: occurrence(newest), next: occurrence(next), open: occurrence(open) }
  }

  /** Whether an instant sent at `now` is believed: not further ahead than the allowed skew. */
  believed(instant: number, now: number): boolean {
    return instant <= now + this.clockSkewMs
  }

  /** What the notification, received at `now`, would do, without changing anything. */
  peek(n: LedgerNotification, now: number): Transition {
    return transition(this.state(n.identity, n.startsAt), { ...n, startBelieved: this.believed(n.startsAt, now) })
  }

  /** For a duplicate: the stored event of the same status it repeats. */
  repeated(t: Extract<Transition, { kind: 'duplicate' }>, status: string): string {
    return this.s.latestEvent.get(t.occurrence.id, status) as string
  }

  /** Applies the notification, to be stored as event `eventId` received at `now`. */
  apply(n: LedgerNotification, eventId: string, now: number): Applied {
    const t = this.peek(n, now)
    if (t.kind !== 'duplicate') this.answers.forget(n.identity)
    const mail = mailOf[t.kind]
    const base = { transition: t, mail, afterEventId: null, superseded: null }
    // An end before the start (Alertmanager's zero time) or further ahead than the allowed
    // skew (a clock gone wrong) is no end: the time the resolution arrived stands in for it.
    const endedAt = n.endsAt !== null && n.endsAt >= n.startsAt && this.believed(n.endsAt, now) ? n.endsAt : now
    const startBelieved = this.believed(n.startsAt, now) ? 1 : 0
    switch (t.kind) {
      case 'duplicate':
        return { ...base, incidentId: t.occurrence.id }
      case 'opened':
      case 'unmatched_resolution': {
        const id = uuidv7(now)
        // An occurrence closed by a start it cannot be ordered against ends when that was heard.
        const supersededAt = startBelieved && t.supersedes?.startBelieved ? n.startsAt : now
        if (t.supersedes) this.s.supersede.run(id, supersededAt, now, t.supersedes.id)
        const firing = t.kind === 'opened'
        this.s.insert.run({
          ...this.identityColumns(n, id),
          status: firing ? 'open' : 'resolved',
          fired: firing ? 1 : 0,
          firingEventId: firing ? eventId : null,
          resolvedEventId: firing ? null : eventId,
          lastMailEventId: firing ? eventId : null,
          supersededBy: null,
          now,
          endedAt: firing ? null : endedAt,
          closedAt: firing ? null : now,
          startBelieved,
        })
        return { ...base, incidentId: id, superseded: t.supersedes?.id ?? null }
      }
      case 'stale_firing': {
        const id = uuidv7(now)
        this.s.insert.run({
          ...this.identityColumns(n, id),
          status: 'superseded',
          fired: 1,
          firingEventId: eventId,
          resolvedEventId: null,
          lastMailEventId: eventId,
          supersededBy: t.supersededBy.id,
          now,
          endedAt: t.supersededBy.startsAt,
          closedAt: now,
          startBelieved,
        })
        return { ...base, incidentId: id }
      }
      case 'late_firing':
        this.s.lateFiring.run(eventId, eventId, now, t.occurrence.id)
        return { ...base, incidentId: t.occurrence.id }
      case 'refired':
        this.s.supersedeOpen.run(t.occurrence.id, now, now, n.identity)
        this.s.refire.run(eventId, now, t.occurrence.id)
        return { ...base, incidentId: t.occurrence.id, afterEventId: t.occurrence.lastMailEventId }
      case 'resolved':
      case 'resolved_superseded': {
        const mails = t.kind === 'resolved'
        this.s.resolve.run({ id: t.occurrence.id, eventId, endedAt, now, mailEventId: mails ? eventId : null })
        return { ...base, incidentId: t.occurrence.id, afterEventId: mails ? t.occurrence.lastMailEventId : null }
      }
    }
  }

  private identityColumns(n: LedgerNotification, id: string) {
    return {
      id,
      identity: n.identity,
      fingerprint: n.fingerprint,
      startsAt: n.startsAt,
      alertname: n.alertname,
      instance: n.instance,
      severity: n.severity,
    }
  }
}
