import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { type MigrationLog, runMigrations } from './migrate.js'

export type Db = Database.Database

/**
 * Opens the one connection of the process (CONTRIBUTING.md): WAL, synchronous=FULL so that a
 * committed transaction survives power loss as well as kill -9 (D11; better-sqlite3's
 * default NORMAL would not), foreign keys on, and a busy timeout of a few milliseconds.
 */
const busyTimeoutMs = 2

export function openDatabase(file: string, log?: MigrationLog): Db {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  // The events hold whole alerts and the results redacted logs: owner only. SQLite creates
  // the -wal and -shm files with the mode of the database file, so that one is made 0600
  // first (and an older one, created world-readable, is tightened).
  closeSync(openSync(file, 'a', 0o600))
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600)
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  // Another process holding the write lock (an operator's sqlite3, a backup) makes a write
  // fail at once rather than stop the event loop: better-sqlite3 waits synchronously. The
  // write is then answered 503 or retried (docs/operations.md).
  // Migrations at start may wait for a lock like any one-off tool; the service may not.
  db.pragma('busy_timeout = 5000')
  runMigrations(db, undefined, log)
  db.pragma(`busy_timeout = ${busyTimeoutMs}`)
  return db
}
