import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type pg from 'pg'
import { postgresMigrationsDir } from '../../paths.js'
import type { MigrationLog } from '../sqlite/migrate.js'
import { inTransaction } from './pool.js'

// Migrations of the PostgreSQL adapter, run once however many replicas start together:
// each start takes one advisory lock for the whole run, so a second replica waits and then
// finds nothing left to do (docs/design.md, "Storage").

const fileName = /^(\d{4})_[a-z0-9_]+\.sql$/
/** Any 64-bit number this service alone uses: "diag-migrate". */
const migrationLock = 0x6469_6167_6d69_6772n

export async function migratePostgres(
  pool: pg.Pool,
  dir = postgresMigrationsDir,
  log?: MigrationLog,
): Promise<number[]> {
  const done: Array<{ database: 'postgres'; version: number; name: string; ms: number }> = []
  const versions = await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLock.toString()])
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`)
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    )
    const pending = readdirSync(dir)
      .filter((name) => fileName.test(name))
      .sort()
      .map((name) => ({ name, version: Number(fileName.exec(name)?.[1]) }))
      .filter(({ version }) => !applied.has(version))
    for (const { name, version } of pending) {
      const began = performance.now()
      await client.query(readFileSync(join(dir, name), 'utf8'))
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        version,
        name,
        Date.now(),
      ])
      // Said once the run commits: it is all or nothing.
      done.push({ database: 'postgres', version, name, ms: Math.round(performance.now() - began) })
    }
    return pending.map(({ version }) => version)
  })
  for (const migration of done) log?.info(migration, 'migration applied')
  return versions
}
