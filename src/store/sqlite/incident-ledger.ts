import {
  believed,
  type LedgerNotification,
  type LedgerWrite,
  type Plan,
  peekNotification,
  planNotification,
} from '../../incidents/ledger-plan.js'
import type { IdentityState, Transition } from '../../incidents/lifecycle.js'
import { uuidv7 } from '../ids.js'
import { type IncidentRow, identityState, stateQueries } from '../incident-rows.js'
import { sqliteNamed } from '../sql-parameters.js'
import type { Db } from './database.js'
import { DuplicateAnswers } from './duplicate-answers.js'

export type { LedgerNotification }

/** What applying a notification did (the plan, without its writes). */
export type Applied = Omit<Plan, 'writes'>

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
      atOrAfter: db.prepare<{ identity: string; startsAt: number }, IncidentRow>(sqliteNamed(stateQueries.atOrAfter)),
      newest: db.prepare<{ identity: string }, IncidentRow>(sqliteNamed(stateQueries.newest)),
      open: db.prepare<{ identity: string }, IncidentRow>(sqliteNamed(stateQueries.open)),
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
      reopen: db.prepare(
        "UPDATE incidents SET status = 'open', ended_at = NULL, closed_at = NULL, last_heard_at = ? WHERE id = ?",
      ),
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
    return identityState(
      this.s.atOrAfter.all({ identity, startsAt }),
      startsAt,
      () => this.s.newest.get({ identity }),
      () => this.s.open.get({ identity }),
    )
  }

  /** Whether an instant sent at `now` is believed: not further ahead than the allowed skew. */
  believed(instant: number, now: number): boolean {
    return believed(instant, now, this.clockSkewMs)
  }

  /** What the notification, received at `now`, would do, without changing anything. */
  peek(n: LedgerNotification, now: number): Transition {
    return peekNotification(this.state(n.identity, n.startsAt), n, now, this.clockSkewMs)
  }

  /** For a duplicate: the stored event of the same status it repeats. */
  repeated(t: Extract<Transition, { kind: 'duplicate' }>, status: string): string {
    return this.s.latestEvent.get(t.occurrence.id, status) as string
  }

  /** Applies the notification, to be stored as event `eventId` received at `now`. */
  apply(n: LedgerNotification, eventId: string, now: number): Applied {
    const { writes, ...applied } = planNotification(
      this.state(n.identity, n.startsAt),
      n,
      { eventId, newId: uuidv7(now) },
      now,
      this.clockSkewMs,
    )
    if (writes.length > 0) this.answers.forget(n.identity)
    for (const write of writes) this.write(write)
    return applied
  }

  private write(w: LedgerWrite): void {
    const s = this.s
    switch (w.op) {
      case 'supersede':
        s.supersede.run(w.by, w.endedAt, w.closedAt, w.id)
        return
      case 'supersede_open':
        s.supersedeOpen.run(w.by, w.endedAt, w.closedAt, w.identity)
        return
      case 'insert':
        s.insert.run(w.row)
        return
      case 'late_firing':
        s.lateFiring.run(w.eventId, w.eventId, w.heardAt, w.id)
        return
      case 'refire':
        s.refire.run(w.eventId, w.heardAt, w.id)
        return
      case 'reopen':
        s.reopen.run(w.heardAt, w.id)
        return
      case 'resolve':
        s.resolve.run({ id: w.id, eventId: w.eventId, endedAt: w.endedAt, now: w.now, mailEventId: w.mailEventId })
        return
    }
  }
}
