import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { migrationsDir } from '../paths.js'

const fileName = /^(\d{4})_[a-z0-9_]+\.sql$/

/** Applies each numbered migration once, in order, each in its own IMMEDIATE transaction. */
export function runMigrations(db: Database.Database, dir = migrationsDir): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .pluck()
      .all()
      .map((version) => Number(version)),
  )
  const pending = readdirSync(dir)
    .filter((name) => fileName.test(name))
    .sort()
    .map((name) => ({ name, version: Number(fileName.exec(name)?.[1]) }))
    .filter(({ version }) => !applied.has(version))

  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
  for (const { name, version } of pending) {
    const sql = readFileSync(join(dir, name), 'utf8')
    db.transaction(() => {
      db.exec(sql)
      record.run(version, name, Date.now())
    }).immediate()
  }
  return pending.map(({ version }) => version)
}
