import type pg from 'pg'
import type { LedgerWrite } from '../../incidents/ledger-plan.js'
import type { Statement } from './sql-literals.js'

// The lifecycle's row changes (src/incidents/ledger-plan.ts) as PostgreSQL statements: the
// SQLite adapter's store/sqlite/incident-ledger.ts writes the same changes.

/** Every statement of a planned write, by name: the ingest prepares them (prepared.ts). */
export const ledgerStatements = {
  insert_incident: `INSERT INTO incidents (id, identity, fingerprint, starts_at, alertname, instance, severity,
  status, fired, firing_event_id, resolved_event_id, last_mail_event_id, superseded_by, opened_at, ended_at, closed_at,
  start_believed, last_heard_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $14)`,
  supersede:
    "UPDATE incidents SET status = 'superseded', superseded_by = $1, ended_at = $2, closed_at = $3 WHERE id = $4 AND status = 'open'",
  supersede_open:
    "UPDATE incidents SET status = 'superseded', superseded_by = $1, ended_at = $2, closed_at = $3 WHERE identity = $4 AND status = 'open'",
  late_firing:
    'UPDATE incidents SET fired = 1, fired_late = 1, firing_event_id = $1, last_mail_event_id = $1, last_heard_at = $2 WHERE id = $3',
  refire: `UPDATE incidents SET status = 'open', refires = refires + 1, ended_at = NULL, closed_at = NULL,
          last_mail_event_id = $1, last_heard_at = $2 WHERE id = $3`,
  reopen: "UPDATE incidents SET status = 'open', ended_at = NULL, closed_at = NULL, last_heard_at = $1 WHERE id = $2",
  resolve: `UPDATE incidents SET status = 'resolved', resolved_event_id = $1, ended_at = $2, closed_at = $3,
          last_heard_at = $3, last_mail_event_id = coalesce($4, last_mail_event_id) WHERE id = $5`,
}

/** Applies one planned write inside the caller's transaction. */
export async function applyWrite(client: Pick<pg.PoolClient, 'query'>, w: LedgerWrite): Promise<void> {
  const { text, values } = writeStatement(w)
  await client.query(text, values as unknown[])
}

/** One planned write as its statement. */
export function writeStatement(w: LedgerWrite): Statement {
  switch (w.op) {
    case 'supersede':
      return {
        text: ledgerStatements.supersede,
        values: [w.by, w.endedAt, w.closedAt, w.id],
      }
    case 'supersede_open':
      return {
        text: ledgerStatements.supersede_open,
        values: [w.by, w.endedAt, w.closedAt, w.identity],
      }
    case 'insert': {
      const r = w.row
      return {
        text: ledgerStatements.insert_incident,
        values: [
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
        ],
      }
    }
    case 'late_firing':
      return {
        text: ledgerStatements.late_firing,
        values: [w.eventId, w.heardAt, w.id],
      }
    case 'refire':
      return {
        text: ledgerStatements.refire,
        values: [w.eventId, w.heardAt, w.id],
      }
    case 'reopen':
      return {
        text: ledgerStatements.reopen,
        values: [w.heardAt, w.id],
      }
    case 'resolve':
      return {
        text: ledgerStatements.resolve,
        values: [w.eventId, w.endedAt, w.now, w.mailEventId, w.id],
      }
  }
}
