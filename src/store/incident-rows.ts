import type { IdentityState, IncidentStatus, Occurrence } from '../incidents/lifecycle.js'

// The incidents table as both adapters read it for the lifecycle: the same columns, the
// same three reads (docs/design.md, "Incidents"), the same state built from them.

export interface IncidentRow {
  id: string
  starts_at: number
  status: IncidentStatus
  fired: number
  fired_late: number
  last_mail_event_id: string | null
  start_believed: number
  opened_at: number
}

export const incidentColumns = 'id, starts_at, status, fired, fired_late, last_mail_event_id, start_believed, opened_at'

/** The three reads, with `$identity` and `$startsAt` for each adapter's placeholders. */
export const stateQueries = {
  // The occurrence at the start and the next believed one after it, in one index range.
  atOrAfter: `SELECT ${incidentColumns} FROM incidents WHERE identity = $identity AND starts_at >= $startsAt
    AND (start_believed = 1 OR starts_at = $startsAt) ORDER BY starts_at LIMIT 2`,
  newest: `SELECT ${incidentColumns} FROM incidents WHERE identity = $identity AND start_believed = 1
    ORDER BY starts_at DESC LIMIT 1`,
  open: `SELECT ${incidentColumns} FROM incidents WHERE identity = $identity AND status = 'open'`,
}

const occurrence = (row: IncidentRow | undefined): Occurrence | undefined =>
  row && {
    id: row.id,
    startsAt: Number(row.starts_at),
    status: row.status,
    fired: row.fired === 1,
    firedLate: row.fired_late === 1,
    lastMailEventId: row.last_mail_event_id,
    startBelieved: row.start_believed === 1,
    openedAt: Number(row.opened_at),
  }

/**
 * The state lifecycle.transition reads, from the rows at or after `startsAt` and, only when
 * needed, the newest believed and the open occurrence (the SQLite adapter reads those two
 * lazily; PostgreSQL has them from the same round trip).
 */
export function identityState(
  atOrAfter: readonly IncidentRow[],
  startsAt: number,
  newest: () => IncidentRow | undefined,
  open: () => IncidentRow | undefined,
): IdentityState {
  const [first, second] = atOrAfter
  const same = first !== undefined && Number(first.starts_at) === startsAt ? first : undefined
  const next = same ? second : first
  // Without a later occurrence, the newest is the one at the start (or the one before it).
  const newestRow = next || !same?.start_believed ? newest() : same
  return {
    same: occurrence(same),
    newest: occurrence(newestRow),
    next: occurrence(next),
    // A resolution of a superseded occurrence may end the open one (lifecycle.ts, `merged`).
    open: same && same.status !== 'superseded' ? undefined : occurrence(open()),
  }
}
