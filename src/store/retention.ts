import type { Db } from './database.js'

/**
 * D22: removes events received before `cutoff` with everything they produced (de-dup
 * keys, queue items, results, outbox rows and incidents go by cascade). Rules are never
 * touched, nor events still waiting for or in the worker. Returns the records removed
 * (events and incidents). One transaction.
 */
export function pruneOlderThan(db: Db, cutoff: number): number {
  const old = `received_at < @cutoff AND id NOT IN (SELECT event_id FROM queue_items WHERE status IN ('queued', 'processing'))`
  const countIncidents = db
    .prepare(`SELECT count(*) FROM incidents WHERE firing_event_id IN (SELECT id FROM events WHERE ${old})`)
    .pluck()
  const deleteEvents = db.prepare(`DELETE FROM events WHERE ${old}`)
  return db.transaction(() => Number(countIncidents.get({ cutoff })) + deleteEvents.run({ cutoff }).changes).immediate()
}
