import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { redactAlert, redactGroupKey } from '../../evidence/redact-alert.js'
import { alertIdentity, alertmanagerFingerprint } from '../../incidents/alert-identity.js'
import { toInstant } from '../../instant.js'
import { migrationsDir } from '../../paths.js'

const fileName = /^(\d{4})_[a-z0-9_]+\.sql$/
// A migration that rebuilds a table others refer to says so on a line of its own; it runs
// with foreign keys off, as SQLite's procedure for such changes asks, and is checked before commit.
const foreignKeysOff = /^-- migrate: foreign_keys=off$/m

type AlertJson = { labels?: Record<string, string> }
const labelsOf = (alert: string) => (JSON.parse(alert) as AlertJson).labels ?? {}

/** Functions the migrations call: the same code as ingestion, so old rows match new ones. */
function registerFunctions(db: Database.Database): void {
  db.function('diag_identity', { deterministic: true }, (alert) => alertIdentity(labelsOf(String(alert))))
  db.function('diag_fingerprint', { deterministic: true }, (alert) => alertmanagerFingerprint(labelsOf(String(alert))))
  db.function('diag_instant', { deterministic: true }, (text) => (text === null ? null : toInstant(String(text))))
  db.function('diag_redact_alert', { deterministic: true }, (alert) =>
    JSON.stringify(redactAlert(JSON.parse(String(alert)) as Parameters<typeof redactAlert>[0])),
  )
  db.function('diag_redact_group_key', { deterministic: true }, (key) => redactGroupKey(String(key)))
}

/** Where a start says which migrations it ran (both adapters). */
export interface MigrationLog {
  info(obj: object, msg: string): void
}

/** Applies each numbered migration once, in order, each in its own IMMEDIATE transaction. */
export function runMigrations(db: Database.Database, dir = migrationsDir, log?: MigrationLog): number[] {
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
  if (pending.length > 0) registerFunctions(db)

  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
  for (const { name, version } of pending) {
    const sql = readFileSync(join(dir, name), 'utf8')
    const began = performance.now()
    const keysOff = foreignKeysOff.test(sql) && db.pragma('foreign_keys', { simple: true }) === 1
    if (keysOff) db.pragma('foreign_keys = OFF')
    try {
      db.transaction(() => {
        db.exec(sql)
        if (keysOff) {
          const broken = db.pragma('foreign_key_check') as unknown[]
          if (broken.length > 0) throw new Error(`migration ${name} breaks ${broken.length} foreign keys`)
        }
        record.run(version, name, Date.now())
      }).immediate()
    } finally {
      if (keysOff) db.pragma('foreign_keys = ON')
    }
    log?.info({ database: 'sqlite', version, name, ms: Math.round(performance.now() - began) }, 'migration applied')
  }
  return pending.map(({ version }) => version)
}
