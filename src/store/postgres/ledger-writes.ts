import type pg from 'pg'
import type { LedgerWrite } from '../../incidents/ledger-plan.js'

// The lifecycle's row changes (src/incidents/ledger-plan.ts) as PostgreSQL statements: the
// SQLite adapter's store/sqlite/incident-ledger.ts writes the same changes.

const insertIncident = `INSERT INTO incidents (id, identity, fingerprint, starts_at, alertname, instance, severity,
  status, fired, firing_event_id, resolved_event_id, last_mail_event_id, superseded_by, opened_at, ended_at, closed_at,
  start_believed, last_heard_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $14)`

/** Applies one planned write inside the caller's transaction. */
export async function applyWrite(client: Pick<pg.PoolClient, 'query'>, w: LedgerWrite): Promise<void> {
  switch (w.op) {
    case 'supersede':
      await client.query(
        "UPDATE incidents SET status = 'superseded', superseded_by = $1, ended_at = $2, closed_at = $3 WHERE id = $4 AND status = 'open'",
        [w.by, w.endedAt, w.closedAt, w.id],
      )
      return
    case 'supersede_open':
      await client.query(
        "UPDATE incidents SET status = 'superseded', superseded_by = $1, ended_at = $2, closed_at = $3 WHERE identity = $4 AND status = 'open'",
        [w.by, w.endedAt, w.closedAt, w.identity],
      )
      return
    case 'insert': {
      const r = w.row
      await client.query(insertIncident, [
        r.id,
        r.identity,
        r.fingerprint,
        r.startsAt,
        r.alertname,
        r.instance,
        r.severity,
        r.status,
        r.fired,
        r.firingEventId,
        r.resolvedEventId,
        r.lastMailEventId,
        r.supersededBy,
        r.now,
        r.endedAt,
        r.closedAt,
        r.startBelieved,
      ])
      return
    }
    case 'late_firing':
      await client.query(
        'UPDATE incidents SET fired = 1, fired_late = 1, firing_event_id = $1, last_mail_event_id = $1, last_heard_at = $2 WHERE id = $3',
        [w.eventId, w.heardAt, w.id],
      )
      return
    case 'refire':
      await client.query(
        `UPDATE incidents SET status = 'open', refires = refires + 1, ended_at = NULL, closed_at = NULL,
          last_mail_event_id = $1, last_heard_at = $2 WHERE id = $3`,
        [w.eventId, w.heardAt, w.id],
      )
      return
    case 'resolve':
      await client.query(
        `UPDATE incidents SET status = 'resolved', resolved_event_id = $1, ended_at = $2, closed_at = $3,
          last_heard_at = $3, last_mail_event_id = coalesce($4, last_mail_event_id) WHERE id = $5`,
        [w.eventId, w.endedAt, w.now, w.mailEventId, w.id],
      )
      return
  }
}
