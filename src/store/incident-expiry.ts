// Open occurrences no longer heard (docs/design.md, "Incidents", "Expiry"): the statement
// both adapters run, with PostgreSQL's `$name` placeholders (src/store/sql-parameters.ts).

/** An occurrence closed as expired, for its log line. */
export interface ExpiredOccurrence {
  id: string
  alertname: string
  instance: string
  fingerprint: string
  /** When it was last heard: its end, as far as the service knows. */
  last_heard_at: number
}

/**
 * Closes every open occurrence last heard before `$cutoff` as expired: it ended, as far as
 * anyone can tell, when it was last heard. Alertmanager repeats a firing alert every
 * `repeat_interval`, so one unheard for longer was resolved without the service being told.
 */
export const expireUnheard = `UPDATE incidents SET status = 'expired', ended_at = last_heard_at, closed_at = $now
  WHERE status = 'open' AND last_heard_at < $cutoff
  RETURNING id, alertname, instance, fingerprint, last_heard_at`
