import type pg from 'pg'
import {
  bundleColumns,
  type EvidenceBundleStore,
  newestBundlesParams,
  newestBundlesSql,
  newestPages,
  toStoredBundle,
} from '../evidence-bundles.js'

/** The stored evidence bundles on PostgreSQL (store/evidence-bundles.ts): any replica reads them. */
export function pgEvidenceBundles(pool: pg.Pool): EvidenceBundleStore {
  return {
    async bundle(eventId) {
      const { rows } = await pool.query(`SELECT ${bundleColumns} FROM evidence_bundles WHERE event_id = $1`, [eventId])
      return rows[0] ? toStoredBundle(rows[0]) : undefined
    },
    newest: (limit) =>
      newestPages(limit, async (after, rows) =>
        (await pool.query(newestBundlesSql(after !== null), newestBundlesParams(after, rows))).rows.map(toStoredBundle),
      ),
  }
}
