import { hostname } from 'node:os'
import pg from 'pg'

// The PostgreSQL connection pool of one replica (docs/operations.md, "PostgreSQL").

/** BIGINT (epoch milliseconds, counts) as a number: every value the service stores fits in 2^53. */
const bigintAsNumber = (text: string) => Number(text)
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? bigintAsNumber
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

export interface PoolOptions {
  /** How long a request waits for a connection or a statement before it is a storage fault. */
  timeoutMs: number
  max: number
}

/**
 * A pool whose every wait is bounded: a PostgreSQL that is down or failing over makes a
 * request fail within `timeoutMs` (and the webhook answer 503), never hang. TLS and the rest
 * come from the URL (`?sslmode=verify-full&sslrootcert=...`), as libpq reads them.
 */
export function createPool(url: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    connectionTimeoutMillis: options.timeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.timeoutMs,
    query_timeout: options.timeoutMs + 1000,
    types,
    // Each replica's connections named apart (pg_stat_activity shows whose they are).
    application_name: `appserver-diag ${hostname()} ${process.pid}`,
  })
  // An idle connection that the server ends (a restart) errors here, not in a request.
  pool.on('error', () => {})
  return pool
}

/**
 * Runs `body` in one transaction on one connection; rolls back on any error. `opening` may
 * add statements without parameters to the `BEGIN`, sent in the same round trip; their
 * results are handed to `body`.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>,
  opening = '',
): Promise<T> {
  const client = await pool.connect()
  let broken = false
  // A server that goes away while this connection is checked out errors it between queries:
  // the transaction's next query fails (a fault of the host), the process must not.
  const dropped = () => {
    broken = true
  }
  client.on('error', dropped)
  try {
    const began = (await client.query(`BEGIN;${opening}`)) as pg.QueryResult | pg.QueryResult[]
    const result = await body(client, Array.isArray(began) ? began.slice(1) : [])
    await client.query('COMMIT')
    return result
  } catch (error) {
    try {
      await client.query('ROLLBACK')
    } catch {
      broken = true
    }
    throw error
  } finally {
    client.off('error', dropped)
    client.release(broken)
  }
}
