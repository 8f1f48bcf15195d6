import type { Db } from './database.js'
import { DuplicateAnswers } from './duplicate-answers.js'

/**
 * Removes what is older than `cutoff` (DIAG_RETENTION_DAYS): an incident goes, with all its
 * events and everything they produced (queue items, results, outbox rows, by cascade),
 * once its latest event is older and none of them waits for or is in the worker. An open
 * incident goes too when nothing was heard of it since: a later firing of the same alert
 * and start opens a new one. Rules are never touched. Returns the records removed (events
 * and incidents). One transaction.
 */
export function pruneOlderThan(db: Db, cutoff: number): number {
  const stale = `SELECT incident_id FROM events WHERE incident_id IS NOT NULL GROUP BY incident_id
    HAVING max(received_at) < @cutoff`
  const busy = `SELECT e.incident_id FROM events e JOIN queue_items q ON q.event_id = e.id
    WHERE q.status IN ('queued', 'processing')`
  const countEvents = db
    .prepare(`SELECT count(*) FROM events WHERE incident_id IN (${stale}) AND incident_id NOT IN (${busy})`)
    .pluck()
  const deleteIncidents = db.prepare(`DELETE FROM incidents WHERE id IN (${stale}) AND id NOT IN (${busy})`)
  return db
    .transaction(() => {
      const events = Number(countEvents.get({ cutoff }))
      const incidents = deleteIncidents.run({ cutoff }).changes
      // A notification of a removed incident is no longer a duplicate.
      if (incidents > 0) DuplicateAnswers.of(db).clear()
      return events + incidents
    })
    .immediate()
}
