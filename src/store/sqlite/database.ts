import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { type MigrationLog, runMigrations } from './migrate.js'
import { type CheckpointOptions, WalCheckpoints } from './wal-checkpoints.js'
import { openWalFile } from './wal-file.js'
import { type SyncWal, WalSync } from './wal-sync.js'

export type Db = Database.Database

export interface DatabaseOptions {
  /**
   * Wraps the WAL's sync, for a test that holds it to see what waits for it; the real sync
   * still runs inside.
   */
  wrapSync?: (sync: SyncWal) => SyncWal
  /** Told when a WAL sync fails (the storage health). */
  onSyncFailure?: (error: unknown) => void
  /**
   * Checkpoints on a thread of their own instead of SQLite's automatic ones in the commits
   * (wal-checkpoints.ts): the service's connection. Without it, a one-off tool's connection
   * keeps SQLite's default.
   */
  checkpoints?: CheckpointOptions
}

/** The WAL sync of each connection opened here: every acknowledged write on it waits for that one. */
const connections = new WeakMap<Db, { wal: WalSync; checkpoints?: WalCheckpoints; close: () => void }>()

/**
 * Opens the connection of the process (CONTRIBUTING.md): WAL with synchronous=NORMAL,
 * whose commits do not wait for the disk, and a WalSync that flushes the WAL off the event
 * loop before anything committed is acknowledged, so that an acknowledged write survives
 * power loss as well as kill -9 (D11); foreign keys on, and a busy timeout of a few
 * milliseconds.
 */
const busyTimeoutMs = 2

export function openDatabase(file: string, log?: MigrationLog, options: DatabaseOptions = {}): Db {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  // The events hold whole alerts and the results redacted logs: owner only. SQLite creates
  // the -wal and -shm files with the mode of the database file, so that one is made 0600
  // first (and an older one, created world-readable, is tightened).
  closeSync(openSync(file, 'a', 0o600))
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600)
  const db = new Database(file)
  // The durability of every acknowledgement rests on the WAL (wal-sync.ts): a file system
  // where SQLite cannot use it (no shared memory) stops the start here.
  const mode = db.pragma('journal_mode = WAL', { simple: true })
  if (mode !== 'wal') throw new Error(`${file}: SQLite could not use WAL mode here (journal_mode is ${String(mode)})`)
  // NORMAL in WAL mode: a commit is not synced, a checkpoint is (the WAL before it is copied
  // into the database, the database after), so the file cannot be corrupted; what a commit
  // promises is made durable by walSync (docs/design.md, D11).
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  // Each write of a group commit runs in its own savepoint, whose journal of the pages it
  // changes SQLite spills to a temporary file past 64 KiB (an evidence bundle is more):
  // about 60 pwrite calls an event on the event loop in bench:worker. In memory it is a
  // copy, freed when the savepoint is released (docs/performance.md, "WAL synced off the
  // event loop").
  db.pragma('temp_store = MEMORY')
  // Another process holding the write lock (an operator's sqlite3, a backup) makes a write
  // fail at once rather than stop the event loop: better-sqlite3 waits synchronously. The
  // write is then answered 503 or retried (docs/operations.md).
  // Migrations at start may wait for a lock like any one-off tool; the service may not.
  db.pragma('busy_timeout = 5000')
  runMigrations(db, undefined, log)
  db.pragma(`busy_timeout = ${busyTimeoutMs}`)
  const walFile = openWalFile(file)
  const changes = db.prepare('SELECT total_changes()').pluck()
  const sync = options.wrapSync ? options.wrapSync(walFile.sync) : walFile.sync
  const checkpoints = options.checkpoints && new WalCheckpoints(db, file, walFile.size, options.checkpoints)
  // The WAL grows only by commits, and every acknowledged one is followed by a sync.
  const syncThenCheckpoint: SyncWal = checkpoints
    ? async () => {
        await sync()
        checkpoints.afterSync()
      }
    : sync
  const wal = new WalSync(syncThenCheckpoint, () => Number(changes.get()), options.onSyncFailure)
  connections.set(db, { wal, ...(checkpoints ? { checkpoints } : {}), close: walFile.close })
  return db
}

/** The checkpoints of a connection opened with `checkpoints`, for the tests that watch them. */
export function walCheckpoints(db: Db): WalCheckpoints | undefined {
  return connections.get(db)?.checkpoints
}

/** The WAL sync of a connection opened by openDatabase. */
export function walSync(db: Db): WalSync {
  const connection = connections.get(db)
  if (!connection) throw new Error('this SQLite connection was not opened by openDatabase: it has no WAL sync')
  return connection.wal
}

/** Closes the connection and its WAL descriptor, once no sync uses it. */
export async function closeDatabase(db: Db): Promise<void> {
  const connection = connections.get(db)
  connections.delete(db)
  await connection?.wal.durable().catch(() => {})
  await connection?.checkpoints?.close()
  db.close()
  connection?.close()
}
