import { hostname } from 'node:os'
import pg from 'pg'

// The PostgreSQL connection pool of one replica (docs/operations.md, "Replicas on PostgreSQL").

/** BIGINT (epoch milliseconds, counts) as a number: every value the service stores fits in 2^53. */
const bigintAsNumber = (text: string) => Number(text)
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? bigintAsNumber
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

/**
 * PostgreSQL's text cannot hold U+0000 (22021), which an alert's label or annotation can:
 * such a value is stored with U+FFFD in its place, instead of failing its request for good
 * (SQLite keeps it; the stored alert's JSON escapes it on both, docs/design.md "Storage").
 */
export const storableText = (value: unknown) =>
  typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value

/** A client whose every parameter goes through storableText. */
class TextSafeClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's query has many overloads; this passes them through.
  override query(...args: any[]): any {
    const [config, values] = args
    if (Array.isArray(values)) args[1] = values.map(storableText)
    // A plain query config; a submittable (a cursor, a stream) is passed as it is.
    else if (
      config &&
      typeof config === 'object' &&
      typeof config.submit !== 'function' &&
      Array.isArray(config.values)
    ) {
      args[0] = { ...config, values: config.values.map(storableText) }
    }
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    return (super.query as (...a: any[]) => any)(...args)
  }
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
    Client: TextSafeClient,
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

/** What a transaction sends beside its body's statements (inTransaction). */
export interface TransactionFrame<T> {
  /** Statements added to the `BEGIN`, sent in the same round trip; their results go to the body. */
  opening?: string
  /** Statements put before the `COMMIT`, from what the body returned. */
  closing?: (result: T) => string
  /** Statements the connection must hold prepared before the `BEGIN` (prepared.ts). */
  prepared?: { on: (client: pg.PoolClient) => Promise<void> }
}

/** Runs `body` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>,
  frame: TransactionFrame<T> = {},
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
    await frame.prepared?.on(client)
    const began = (await client.query(`BEGIN;${frame.opening ?? ''}`)) as pg.QueryResult | pg.QueryResult[]
    const result = await body(client, Array.isArray(began) ? began.slice(1) : [])
    await client.query(`${frame.closing?.(result) ?? ''}COMMIT`)
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
