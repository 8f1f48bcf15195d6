import {
  bundleColumns,
  type EvidenceBundleStore,
  newestBundlesParams,
  newestBundlesSql,
  newestPages,
  toStoredBundle,
} from '../evidence-bundles.js'
import { numbered, sqliteNumbered } from '../sql-parameters.js'
import type { Db } from './database.js'

/**
 * The stored evidence bundles on SQLite (store/evidence-bundles.ts). A page is read whole
 * (`all`): the one connection cannot run another statement while an iterator is open, and
 * the consumer awaits between pages.
 */
export function sqliteEvidenceBundles(db: Db): EvidenceBundleStore {
  const one = db.prepare<[string], Record<string, unknown>>(
    `SELECT ${bundleColumns} FROM evidence_bundles WHERE event_id = ?`,
  )
  const first = db.prepare<Record<number, unknown>, Record<string, unknown>>(sqliteNumbered(newestBundlesSql(false)))
  const next = db.prepare<Record<number, unknown>, Record<string, unknown>>(sqliteNumbered(newestBundlesSql(true)))
  return {
    bundle(eventId) {
      const row = one.get(eventId)
      return row ? toStoredBundle(row) : undefined
    },
    newest: (limit) =>
      newestPages(limit, (after, rows) =>
        (after ? next : first).all(numbered(...newestBundlesParams(after, rows))).map(toStoredBundle),
      ),
  }
}
