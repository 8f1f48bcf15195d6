import type { IdentityState } from '../../incidents/lifecycle.js'
import { type IncidentRow, identityState, stateQueries } from '../incident-rows.js'
import type { AlertEventInput } from '../ingest-port.js'
import { inlined } from './sql-literals.js'

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
 * `stateQuery` for many notifications in one statement without parameters (it is sent with
 * the BEGIN and the locks): each notification a row of VALUES, its reads joined laterally,
 * every row tagged with its notification's index `n`.
 */
export function statesQuery(alerts: readonly AlertEventInput[]): string {
  const values = alerts
    .map((alert, n) =>
      inlined({ text: '($1, $2, $3::bigint, $4)', values: [n, alert.identity, alert.startsAt, alert.status] }),
    )
    .join(', ')
  const lateral = stateQuery.replaceAll('$1', 'q.identity').replaceAll('$2', 'q.starts_at').replaceAll('$3', 'q.status')
  return `SELECT q.n, s.* FROM (VALUES ${values}) AS q(n, identity, starts_at, status) CROSS JOIN LATERAL (${lateral}) s`
}

/** The states of a batch's notifications from the rows of `statesQuery`, in their order. */
export function statesOf(rows: ReadonlyArray<StateRow & { n: number }>, alerts: readonly AlertEventInput[]): State[] {
  const byAlert = alerts.map((): StateRow[] => [])
  for (const row of rows) byAlert[row.n]?.push(row)
  return alerts.map((alert, n) => stateOf(byAlert[n] ?? [], alert.startsAt))
}
