import type { IdentityState } from '../../incidents/lifecycle.js'
import { type IncidentRow, identityState, stateQueries } from '../incident-rows.js'
import type { AlertEventInput } from '../ingest-port.js'
import type { Statement } from './sql-literals.js'

// The lifecycle's reads of an identity (docs/design.md, "Incidents"), in PostgreSQL's form:
// for one alert with parameters, or for every alert of a batch in one statement.

/** PostgreSQL names parameters by position: `$identity` is $1, `$startsAt` $2. */
const positional = (query: string) => query.replaceAll('$identity', '$1').replaceAll('$startsAt', '$2')

/** The stored event a notification of status $2 repeats, in the occurrence $1. */
export const latestEvent = `SELECT id FROM events WHERE incident_id = $1
  ORDER BY (status = $2) DESC, received_at DESC, id DESC LIMIT 1`

// The three reads of the lifecycle in one round trip, each row tagged with the read it answers;
// the occurrence at the start also brings the stored event a repeat of status $3 would answer
// with, so that a duplicate costs this one round trip.
export const stateQuery = `(SELECT 'range' AS read, r.*, CASE WHEN r.starts_at = $2 THEN
    (${latestEvent.replace('$1', 'r.id').replace('$2', '$3')}) END AS repeats
    FROM (${positional(stateQueries.atOrAfter)}) r)
  UNION ALL (SELECT 'newest', *, NULL FROM (${positional(stateQueries.newest)}) n)
  UNION ALL (SELECT 'open', *, NULL FROM (${positional(stateQueries.open)}) o)`

export type StateRow = IncidentRow & { read: string; repeats: string | null }
/** An identity's state, and the event a repeat of the notification answers with. */
export type State = IdentityState & { repeats: string | null }

/** The state from the rows of `stateQuery` for one notification. */
export function stateOf(rows: readonly StateRow[], startsAt: number): State {
  const range = rows.filter((row) => row.read === 'range')
  const state = identityState(
    range,
    startsAt,
    () => rows.find((row) => row.read === 'newest'),
    () => rows.find((row) => row.read === 'open'),
  )
  return { ...state, repeats: range.find((row) => row.repeats !== null)?.repeats ?? null }
}

/**
 * `stateQuery` for many notifications in one statement: the notifications as three arrays,
 * their reads joined laterally, every row tagged with its notification's index `n`. It is
 * prepared (prepared.ts): its text is the same for every batch.
 */
export const statesText = `SELECT (q.n - 1)::int AS n, s.*
  FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS q(identity, starts_at, status, n)
  CROSS JOIN LATERAL (${stateQuery.replaceAll('$1', 'q.identity').replaceAll('$2', 'q.starts_at').replaceAll('$3', 'q.status')}) s`

/** `statesText` for a batch's notifications. */
export const statesQuery = (alerts: readonly AlertEventInput[]): Statement => ({
  text: statesText,
  values: [alerts.map((a) => a.identity), alerts.map((a) => a.startsAt), alerts.map((a) => a.status)],
})

/** The states of a batch's notifications from the rows of `statesQuery`, in their order. */
export function statesOf(rows: ReadonlyArray<StateRow & { n: number }>, alerts: readonly AlertEventInput[]): State[] {
  const byAlert = alerts.map((): StateRow[] => [])
  for (const row of rows) byAlert[row.n]?.push(row)
  return alerts.map((alert, n) => stateOf(byAlert[n] ?? [], alert.startsAt))
}
