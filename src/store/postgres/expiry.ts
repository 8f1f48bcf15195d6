import type pg from 'pg'
import { type ExpiredOccurrence, expireUnheard } from '../incident-expiry.js'
import { positional } from '../sql-parameters.js'
import type { PgHeardOccurrences } from './heard-occurrences.js'
import { inTransaction } from './pool.js'

/**
 * The expiry of store/sqlite/expiry.ts on PostgreSQL. Replicas may run it at once: the update
 * closes each occurrence once. An occurrence another replica heard within the last minute
 * and has not written yet may expire; its next repeat opens it again (`reopened`).
 */
export async function pgExpireOccurrences(
  pool: pg.Pool,
  cutoff: number,
  now: number,
  heard?: PgHeardOccurrences,
): Promise<ExpiredOccurrence[]> {
  const { text, values } = positional(expireUnheard, { cutoff, now })
  return inTransaction(pool, async (client) => {
    await heard?.write(client)
    const { rows } = await client.query<ExpiredOccurrence>(text, values)
    return rows.map((row) => ({ ...row, last_heard_at: Number(row.last_heard_at) }))
  })
}
