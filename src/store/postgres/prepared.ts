import type pg from 'pg'
import { inlined, type Statement } from './sql-literals.js'

// The ingest transaction's statements, prepared once per connection (docs/performance.md,
// "Replicas on PostgreSQL"). A batch sends its statements as one simple-query string, which
// takes no parameters; sent as text, each statement was parsed and planned again at every
// batch, and that was more than half of PostgreSQL's CPU per alert. `EXECUTE name(...)` in the
// same string keeps the one round trip and reuses the plan. The statements are prepared in
// a round trip of their own, outside any transaction, the first time a connection meets them,
// so that a rolled-back transaction cannot leave a connection believed to hold them.
// PostgreSQL would still plan each execution again while it judges a custom plan better than
// the generic one; the statements are executed with the generic plan (`generic`), set for
// their transaction only, as the other statements of the connection are planned as before.

/** A fixed set of statements, prepared on each connection of a pool before its first use. */
export class PreparedStatements {
  private readonly names = new Map<string, string>()
  private readonly ready = new WeakSet<object>()
  private readonly prepare: string

  constructor(statements: Record<string, string>) {
    for (const [name, text] of Object.entries(statements)) this.names.set(text, `diag_${name}`)
    this.prepare = [...this.names].map(([text, name]) => `PREPARE ${name} AS ${text};`).join('')
  }

  /** Put first in a transaction of these statements: their plans are made once, not per execution. */
  static readonly generic = 'SET LOCAL plan_cache_mode = force_generic_plan'

  /** Prepares every statement on the connection, unless it already holds them. */
  async on(client: Pick<pg.PoolClient, 'query'>): Promise<void> {
    if (this.ready.has(client)) return
    await client.query(this.prepare)
    this.ready.add(client)
  }

  /** The statement as `EXECUTE`, its values as literals: for a string of many statements. */
  execute(statement: Statement): string {
    const name = this.names.get(statement.text)
    if (name === undefined) throw new Error(`not a prepared statement: ${statement.text.slice(0, 60)}`)
    if (statement.values.length === 0) return `EXECUTE ${name}`
    const args = statement.values.map((_, i) => `$${i + 1}`).join(', ')
    return inlined({ text: `EXECUTE ${name}(${args})`, values: statement.values })
  }

  /** Runs `statement` on a connection of the pool that holds it: one round trip once prepared. */
  async query<R extends pg.QueryResultRow>(pool: pg.Pool, statement: Statement): Promise<pg.QueryResult<R>> {
    const client = await pool.connect()
    let broken = false
    try {
      await this.on(client)
      const results = (await client.query(
        `BEGIN READ ONLY;${PreparedStatements.generic};${this.execute(statement)};COMMIT`,
      )) as unknown as pg.QueryResult<R>[]
      return results[2] as pg.QueryResult<R>
    } catch (error) {
      // A failed statement leaves the transaction aborted: rolled back before the connection
      // goes back; one the server dropped, or that cannot roll back, is not handed out again.
      broken = (error as { code?: unknown }).code === undefined
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true))
      throw error
    } finally {
      client.release(broken)
    }
  }
}
