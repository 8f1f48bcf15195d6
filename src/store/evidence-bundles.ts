import type { EncodedBundle } from '../rules/bundle/evidence-bundle.js'
import type { Awaitable } from '../worker/ports.js'

// The stored evidence bundles (docs/design.md, "Stored evidence"), as both adapters write and
// read them: one row per diagnosed event, written in the diagnosis's own transaction.

/** A stored bundle as read back: still compressed (rules/bundle/evidence-bundle.ts decodes it). */
export interface StoredBundle {
  eventId: string
  incidentId: string
  /** When its diagnosis committed (epoch ms). */
  createdAt: number
  encoding: 'br'
  format: number
  bytes: Buffer
  rawBytes: number
  truncated: boolean
}

/** What the console and the replay read of the bundles, whichever database holds them. */
export interface EvidenceBundleStore {
  /** The bundle of one diagnosed event; undefined when it has none (not diagnosed, or before this version). */
  bundle(eventId: string): Awaitable<StoredBundle | undefined>
  /**
   * The bundles of the last `limit` diagnosed events, newest first, read a page at a time
   * (`bundlePage` rows): the next page is read only when the consumer asks for it.
   */
  newest(limit: number): AsyncIterable<StoredBundle>
}

/** Rows a page of `newest` reads: a page of bundles is at most this many times 512 KiB. */
export const bundlePage = 16

/** Numbered parameters, `$n` (src/queue/queue-sql.ts). */
export const insertBundleSql = `INSERT INTO evidence_bundles
  (event_id, incident_id, created_at, encoding, format, raw_bytes, truncated, bundle)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

export const bundleValues = (eventId: string, incidentId: string, bundle: EncodedBundle, now: number) => [
  eventId,
  incidentId,
  now,
  bundle.encoding,
  bundle.format,
  bundle.rawBytes,
  bundle.truncated ? 1 : 0,
  bundle.bytes,
]

export const bundleColumns = 'event_id, incident_id, created_at, encoding, format, raw_bytes, truncated, bundle'

/** The newest page (`$1` rows), or the page after a position (`$1` created_at, `$2` event_id, `$3` rows). */
export const newestBundlesSql = (after: boolean) => `SELECT ${bundleColumns} FROM evidence_bundles
  ${after ? 'WHERE created_at < $1 OR (created_at = $1 AND event_id < $2)' : ''}
  ORDER BY created_at DESC, event_id DESC LIMIT ${after ? '$3' : '$1'}`

export type BundlePosition = { createdAt: number; eventId: string }

/** The parameters of `newestBundlesSql`. */
export const newestBundlesParams = (after: BundlePosition | null, rows: number) =>
  after ? [after.createdAt, after.eventId, rows] : [rows]

export function toStoredBundle(row: Record<string, unknown>): StoredBundle {
  return {
    eventId: row.event_id as string,
    incidentId: row.incident_id as string,
    createdAt: Number(row.created_at),
    encoding: row.encoding as 'br',
    format: Number(row.format),
    bytes: row.bundle as Buffer,
    rawBytes: Number(row.raw_bytes),
    truncated: Number(row.truncated) === 1,
  }
}

/** `newest` over an adapter's page read: keyset pages, never more than `limit` rows in all. */
export async function* newestPages(
  limit: number,
  page: (after: BundlePosition | null, rows: number) => Awaitable<StoredBundle[]>,
): AsyncGenerator<StoredBundle> {
  let left = limit
  let after: BundlePosition | null = null
  while (left > 0) {
    const rows = await page(after, Math.min(bundlePage, left))
    for (const row of rows) yield row
    left -= rows.length
    const last = rows.at(-1)
    if (!last || rows.length < Math.min(bundlePage, left + rows.length)) return
    after = { createdAt: last.createdAt, eventId: last.eventId }
  }
}
