import type { WorkQueue } from '../../queue/work-queue.js'
import type { WorkerStore } from '../../worker/ports.js'
import { bundleValues, insertBundleSql } from '../evidence-bundles.js'
import { numbered, sqliteNumbered } from '../sql-parameters.js'
import {
  headlineSql,
  headlineValues,
  type IncidentRow,
  insertMailSql,
  mailValues,
  storedEventQuery,
  toIncident,
  toStoredEvent,
} from '../worker-rows.js'
import type { Db } from './database.js'
import type { WriteBatcher } from './write-batcher.js'

/**
 * The worker's storage (worker/ports.ts) on the one SQLite connection. Its commits go
 * through `batcher`: the events of one turn of the event loop share a commit.
 */
export function sqliteWorkerStore(db: Db, batcher: WriteBatcher, queue: Pick<WorkQueue, 'complete'>): WorkerStore {
  const s = {
    event: db.prepare<[string], Record<string, unknown>>(`${storedEventQuery} ?`),
    hasResult: db.prepare('SELECT 1 FROM results WHERE event_id = ?').pluck(),
    incident: db.prepare<[string], IncidentRow>('SELECT * FROM incidents WHERE id = ?'),
    queued: db.prepare("SELECT 1 FROM queue_items WHERE event_id = ? AND status IN ('queued', 'processing')").pluck(),
    insertResult: db.prepare(
      'INSERT OR IGNORE INTO results (event_id, incident_id, kind, result, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    headline: db.prepare<[Record<number, unknown>]>(sqliteNumbered(headlineSql)),
    insertMail: db.prepare<[Record<number, unknown>]>(sqliteNumbered(insertMailSql)),
    insertBundle: db.prepare<[Record<number, unknown>]>(sqliteNumbered(insertBundleSql)),
  }
  const commit = db.transaction((input: Parameters<WorkerStore['commit']>[0]): boolean => {
    const { eventId, incidentId, kind, now } = input
    if (s.insertResult.run(eventId, incidentId, kind, JSON.stringify(input.result), now).changes === 0) return false
    if (input.headline) s.headline.run(numbered(...headlineValues(input.headline, incidentId)))
    if (input.bundle) s.insertBundle.run(numbered(...bundleValues(eventId, incidentId, input.bundle, now)))
    if (input.mail) s.insertMail.run(numbered(...mailValues(input.mail, now)))
    if (input.lease) queue.complete(input.lease)
    return true
  })

  const incident = (id: string) => {
    const row = s.incident.get(id)
    return row ? toIncident(row) : undefined
  }
  return {
    load(eventId) {
      const row = s.event.get(eventId)
      if (!row) return undefined
      const event = toStoredEvent(row)
      return { event, processed: s.hasResult.get(eventId) !== undefined, incident: incident(event.incidentId) }
    },
    incident,
    predecessor(eventId) {
      if (s.hasResult.get(eventId) !== undefined) return 'done'
      return s.queued.get(eventId) !== undefined ? 'waiting' : 'gone'
    },
    commit: (input) => batcher.run(() => commit(input)),
  }
}
