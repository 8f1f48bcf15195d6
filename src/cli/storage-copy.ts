import { existsSync } from 'node:fs'
import type pg from 'pg'
import { migratePostgres } from '../store/postgres/migrate.js'
import { createPool, inTransaction } from '../store/postgres/pool.js'
import { closeDatabase, type Db, openDatabase } from '../store/sqlite/database.js'
import type { Output } from './output.js'

// Moving an existing SQLite database to PostgreSQL (docs/operations.md, "Moving from SQLite
// to PostgreSQL"): every table, in the order their foreign keys need, in one transaction,
// into an empty database; the sequences then continue after the copied ids.

/** Parents before children; `rules` last. */
const tables = [
  'incidents',
  'events',
  'queue_items',
  'results',
  'outbox',
  'evidence_bundles',
  'alert_duplicates',
  'rules',
] as const
/** Tables whose ids a sequence hands out on PostgreSQL. */
const sequenced = ['queue_items', 'outbox', 'rules'] as const
const batch = 200

export async function copySqliteToPostgres(from: string, to: string, output: Output, json: boolean): Promise<number> {
  if (!existsSync(from)) {
    output.err(`${from}: no such SQLite database (stop the service, then give its data/diagnostic.db)`)
    return 1
  }
  // The SQLite file is migrated to this version's schema first, as a start would.
  const db = openDatabase(from)
  const pool = createPool(to, { timeoutMs: 60_000, max: 2 })
  try {
    await migratePostgres(pool)
    const copied = await inTransaction(pool, async (client) => {
      const held = await client.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM rules) + (SELECT count(*) FROM incidents) AS n',
      )
      if (Number(held.rows[0]?.n) > 0) return undefined
      const counts: Record<string, number> = {}
      for (const table of tables) counts[table] = await copyTable(db, client, table)
      for (const table of sequenced) {
        await client.query(
          `SELECT setval(pg_get_serial_sequence($1, 'id'), greatest((SELECT max(id) FROM ${table}), 1), (SELECT max(id) IS NOT NULL FROM ${table}))`,
          [table],
        )
      }
      return counts
    })
    if (!copied) {
      output.err('the PostgreSQL database already holds incidents, events or rules: copy into an empty database')
      return 1
    }
    if (json) output.out(JSON.stringify({ copied }))
    else for (const [table, rows] of Object.entries(copied)) output.out(`${table}\t${rows}`)
    return 0
  } finally {
    await closeDatabase(db)
    await pool.end()
  }
}

/** The columns both schemas have, copied `batch` rows a statement. */
async function copyTable(db: Db, client: Pick<pg.PoolClient, 'query'>, table: string): Promise<number> {
  const target = await client.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_name = $1',
    [table],
  )
  const wanted = new Set(target.rows.map((row) => row.column_name))
  const columns = (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).filter(
    (name) => wanted.has(name),
  )
  let rows: unknown[][] = []
  let copied = 0
  const flush = async () => {
    if (rows.length === 0) return
    const values = rows.map((row, r) => `(${row.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`)
    await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values.join(', ')}`, rows.flat())
    copied += rows.length
    rows = []
  }
  const select = db.prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY rowid`).raw()
  for (const row of select.iterate() as Iterable<unknown[]>) {
    rows.push(row)
    if (rows.length >= batch) await flush()
  }
  await flush()
  return copied
}
