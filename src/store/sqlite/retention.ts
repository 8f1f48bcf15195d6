import type { Db } from './database.js'
import { DuplicateAnswers } from './duplicate-answers.js'
import type { HeardOccurrences } from './heard-occurrences.js'

export interface Pruned {
  /** Events and incidents removed. */
  records: number
  /** The events removed: their `.eml` files go with them. */
  eventIds: string[]
}

/**
 * Removes what went quiet before `cutoff` (DIAG_RETENTION_DAYS): an incident goes, with all
 * its events and everything they produced (queue items, results, outbox rows, by cascade),
 * once it was last heard before the cutoff (`last_heard_at`: its notifications, duplicates
 * included) and none of its events waits for or is in the worker. An open occurrence whose
 * repeats keep coming is heard, so it stays; one that went silent goes, and a later firing
 * of the same alert and start opens a new one. Rules are never touched. One transaction.
 */
export function pruneOlderThan(db: Db, cutoff: number, heard?: HeardOccurrences): Pruned {
  const busy = `SELECT e.incident_id FROM events e JOIN queue_items q ON q.event_id = e.id
    WHERE q.status IN ('queued', 'processing')`
  const quiet = `SELECT id FROM incidents WHERE last_heard_at < @cutoff AND id NOT IN (${busy})`
  const events = db.prepare(`SELECT id FROM events WHERE incident_id IN (${quiet})`).pluck()
  const deleteIncidents = db.prepare(`DELETE FROM incidents WHERE id IN (${quiet})`)
  return db
    .transaction((): Pruned => {
      // Duplicates heard and not yet written count: they keep their occurrence.
      heard?.writeInto()
      const eventIds = events.all({ cutoff }) as string[]
      const incidents = deleteIncidents.run({ cutoff }).changes
      // A notification of a removed incident is no longer a duplicate.
      if (incidents > 0) DuplicateAnswers.of(db).clear()
      return { records: eventIds.length + incidents, eventIds }
    })
    .immediate()
}
