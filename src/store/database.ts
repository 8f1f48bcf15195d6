import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { runMigrations } from './migrate.js'

export type Db = Database.Database

/**
 * Opens the one connection of the process (STYLE.md): WAL, synchronous=FULL so that a
 * committed transaction survives power loss as well as kill -9 (D11; better-sqlite3's
 * default NORMAL would not), foreign keys on, and a busy timeout for external readers.
 */
export function openDatabase(file: string): Db {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  runMigrations(db)
  return db
}
