import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, type Db, openDatabase, walCheckpoints, walSync } from '../../src/store/sqlite/database.js'
import type { CheckpointOptions, CheckpointSite } from '../../src/store/sqlite/wal-checkpoints.js'

// The thread runs the compiled script (test/global-setup.ts builds dist/ first).
const triggerBytes = 256 * 1024
const hardBytes = 1024 * 1024
/** One commit: 8 rows of 16 KiB, about 33 pages of the WAL. */
const commitBytes = 8 * 16 * 1024

/**
 * The service's checkpoints (docs/design.md, "Durable commits on SQLite"): the WAL is copied
 * into the database file by a second connection on a thread of its own, never by the
 * commits on the event loop; the event loop checkpoints only when the WAL passes its bound.
 */
describe('WAL checkpoints off the event loop', () => {
  let dir: string
  let file: string
  let db: Db
  let counted: Record<CheckpointSite, number>
  let failures: unknown[]
  let waiting: Array<() => void>
  const walBytes = () => statSync(`${file}-wal`).size

  const open = (options: CheckpointOptions = {}) => {
    db = openDatabase(file, undefined, {
      checkpoints: {
        triggerBytes,
        hardBytes,
        onCheckpoint: (site) => {
          counted[site]++
          for (const wake of waiting.splice(0)) wake()
        },
        onFailure: (error) => failures.push(error),
        ...options,
      },
    })
    db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body BLOB NOT NULL)')
  }
  const body = Buffer.alloc(16 * 1024, 1)
  const insert = () =>
    db.transaction(() => {
      const statement = db.prepare('INSERT INTO notes (body) VALUES (?)')
      for (let i = 0; i < 8; i++) statement.run(body)
    })()
  /** A commit and the sync that acknowledges it (which asks for a checkpoint past the trigger). */
  const commit = async () => {
    insert()
    await walSync(db).durable()
  }
  /** Resolves at the next checkpoint reported. */
  const nextCheckpoint = () => new Promise<void>((resolve) => waiting.push(resolve))
  /** A commit; when its sync asked the thread for a checkpoint, once that one is done. */
  const commitAndCheckpoint = async () => {
    const done = nextCheckpoint()
    await commit()
    if (walBytes() > triggerBytes) await done
  }
  /**
   * Commits until the thread has checkpointed once and the WAL started again: what the
   * migrations wrote at the open (about 0.5 MiB) is in the database file.
   */
  const settle = async () => {
    while (counted.checkpoint_thread === 0 || walBytes() > triggerBytes) await commitAndCheckpoint()
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'diag-wal-checkpoints-'))
    file = join(dir, 'diagnostic.db')
    counted = { checkpoint_thread: 0, event_loop: 0 }
    failures = []
    waiting = []
  })
  afterEach(async () => {
    await closeDatabase(db)
    rmSync(dir, { recursive: true, force: true })
  })

  it('turns the automatic checkpoint off on the service connection only', () => {
    open()
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    const tool = openDatabase(join(dir, 'tool.db'))
    expect(tool.pragma('wal_autocheckpoint', { simple: true })).toBe(1000) // SQLite's default
    tool.close()
  })

  it('the thread checkpoints and the WAL starts again from its beginning: none on the event loop', async () => {
    open()
    await settle()
    const before = counted.checkpoint_thread
    const rows = db.prepare('SELECT count(*) FROM notes').pluck()
    const rowsBefore = Number(rows.get())
    let written = 0
    let maxWal = 0
    // Twenty times the trigger in all; after each checkpoint asked, the next commit comes
    // once it is done, as in a service that is not writing without pause.
    while (written < 20 * triggerBytes) {
      await commitAndCheckpoint()
      written += commitBytes
      maxWal = Math.max(maxWal, walBytes())
    }
    expect(counted.checkpoint_thread - before).toBeGreaterThanOrEqual(5)
    expect(counted.event_loop).toBe(0)
    expect(failures).toEqual([])
    // Bounded by the thread alone: the trigger and the commit that crossed it.
    expect(maxWal).toBeLessThanOrEqual(triggerBytes + commitBytes + 64 * 1024)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    expect(rows.get()).toBe(rowsBefore + (written / commitBytes) * 8)
  })

  it('holds the WAL to its bound from the event loop when no thread checkpoints', async () => {
    open({ thread: false })
    let maxWal = 0
    for (let written = 0; written < 5 * hardBytes; written += commitBytes) {
      await commit()
      maxWal = Math.max(maxWal, walBytes())
    }
    expect(counted.checkpoint_thread).toBe(0)
    expect(counted.event_loop).toBeGreaterThanOrEqual(4)
    // The bound and the one commit that crossed it, whose sync found it crossed.
    expect(maxWal).toBeLessThanOrEqual(hardBytes + commitBytes + 64 * 1024)
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  })

  it('holds the bound when the thread falls behind the writes, and keeps every commit', async () => {
    open()
    let aboveWithoutThread = 0
    let above = 0
    // Commits without a pause: the thread's PASSIVE checkpoints never catch up with the
    // writer, so the WAL never starts again by itself; the event loop's bound holds it.
    for (let written = 0; written < 5 * hardBytes; written += commitBytes) {
      await commit()
      if (walBytes() <= hardBytes) continue
      // Past the bound after a sync, the event loop's TRUNCATE found the checkpoint lock
      // taken: only the thread's checkpoint in flight may hold it (no reader is open). How
      // many commits that lasts depends on the machine's speed, so it is not counted here.
      above++
      if (!walCheckpoints(db)?.checkpointing) aboveWithoutThread++
    }
    expect(aboveWithoutThread).toBe(0)
    expect(counted.checkpoint_thread + counted.event_loop).toBeGreaterThan(0)
    // Once the thread's last checkpoint is done, the next commit's sync brings the WAL back.
    if (walCheckpoints(db)?.checkpointing) await nextCheckpoint()
    await commit()
    expect(walBytes()).toBeLessThanOrEqual(hardBytes)
    expect(above).toBeLessThan(Math.ceil((5 * hardBytes) / commitBytes))
    expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(
      (Math.ceil((5 * hardBytes) / commitBytes) + 1) * 8,
    )
  })

  it('starts the thread again when it died, and tells it once', async () => {
    open()
    await settle()
    const thread = walCheckpoints(db)?.thread
    expect(thread).toBeDefined()
    const exited = new Promise((resolve) => thread?.once('exit', resolve))
    await thread?.terminate()
    await exited
    expect(failures).toHaveLength(1)
    const after = counted.checkpoint_thread
    while (counted.checkpoint_thread === after) await commitAndCheckpoint()
    expect(walCheckpoints(db)?.thread).not.toBe(thread)
    expect(counted.event_loop).toBe(0)
  })

  it('never holds a reader: a snapshot kept open still reads, and the WAL starts again once it ends', async () => {
    open()
    await settle()
    const reader = new Database(file, { readonly: true })
    const read = reader.prepare('SELECT count(*) FROM notes').pluck()
    reader.exec('BEGIN')
    const seen = read.get()
    // Within the bound: a reader's snapshot keeps every frame after it in the WAL, whatever
    // checkpoints (SQLite's own rule); the event loop's TRUNCATE would wait for it too.
    let maxWal = 0
    for (let written = 0; written < 2 * triggerBytes; written += commitBytes) {
      await commitAndCheckpoint()
      maxWal = Math.max(maxWal, walBytes())
    }
    expect(maxWal).toBeGreaterThan(2 * triggerBytes) // it did not start again under the reader
    expect(read.get()).toBe(seen) // its snapshot, whatever the checkpoints copied
    reader.exec('COMMIT')
    reader.close()
    // Once the reader is gone the thread catches up and the WAL starts again.
    let tries = 0
    do {
      await commitAndCheckpoint()
      expect(++tries).toBeLessThan(10)
    } while (walBytes() > triggerBytes)
    expect(counted.event_loop).toBe(0)
  })

  it('ends an idle thread, and starts one again at the next checkpoint', async () => {
    open({ idleMs: 50 })
    await settle()
    const thread = walCheckpoints(db)?.thread
    expect(thread).toBeDefined()
    // The positive signal: the thread exits once idle, by itself.
    expect(await new Promise((resolve) => thread?.once('exit', resolve))).toBe(0)
    expect(walCheckpoints(db)?.thread).toBeUndefined()
    const after = counted.checkpoint_thread
    while (counted.checkpoint_thread === after) await commitAndCheckpoint()
    expect(walCheckpoints(db)?.thread).toBeDefined()
    expect(failures).toEqual([]) // an idle end is no failure
    expect(counted.event_loop).toBe(0)
  })

  it('ends the thread with the connection, and the WAL is removed by the last close as before', async () => {
    open()
    await settle()
    const thread = walCheckpoints(db)?.thread
    const exited = new Promise<number>((resolve) => thread?.once('exit', resolve))
    await closeDatabase(db)
    expect(await exited).toBe(0)
    expect(failures).toEqual([])
    expect(() => statSync(`${file}-wal`)).toThrow(/ENOENT/)
    db = openDatabase(file) // for afterEach
  })
})
