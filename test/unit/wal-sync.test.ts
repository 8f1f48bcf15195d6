import { mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hostFaultCode } from '../../src/host-faults.js'
import { closeDatabase, type Db, openDatabase, walSync } from '../../src/store/sqlite/database.js'
import { openWalFile } from '../../src/store/sqlite/wal-file.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'
import { heldSync, turn } from '../helpers/held-sync.js'

const eio = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })

describe('WAL group sync (D11)', () => {
  let dir: string
  let db: Db
  let held: ReturnType<typeof heldSync>
  const failures: unknown[] = []
  const insert = () => db.prepare('INSERT INTO notes (text) VALUES (?)').run('a note')

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'diag-wal-sync-'))
    held = heldSync()
    failures.length = 0
    db = openDatabase(join(dir, 'diagnostic.db'), undefined, {
      wrapSync: held.wrap,
      onSyncFailure: (error) => failures.push(error),
    })
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
  })
  afterEach(async () => {
    for (const call of held.calls) call.release()
    await closeDatabase(db)
    rmSync(dir, { recursive: true, force: true })
  })

  it('runs in WAL mode with synchronous=NORMAL: commits do not sync, WalSync does', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('synchronous', { simple: true })).toBe(1) // NORMAL
  })

  it('syncs nothing when nothing was written since the last sync', async () => {
    await walSync(db).durable()
    db.prepare('SELECT count(*) FROM notes').get()
    await walSync(db).durable()
    expect(held.calls).toHaveLength(0)
  })

  it('covers every commit made during an in-flight sync with one next sync, and settles none before its sync', async () => {
    const wal = walSync(db)
    const settled: string[] = []
    insert()
    const first = wal.durable().then(() => settled.push('first'))
    await held.startedCount(1)
    const later = Array.from({ length: 5 }, (_, i) => {
      insert()
      return wal.durable().then(() => settled.push(`later ${i}`))
    })
    await turn()
    expect(held.calls).toHaveLength(1) // one in flight at a time
    expect(settled).toEqual([]) // nothing before its sync

    held.calls[0]?.release()
    await first
    await held.startedCount(2)
    await turn()
    expect(settled).toEqual(['first']) // the later commits wait for the next sync
    expect(held.calls).toHaveLength(2) // one sync for all five

    held.calls[1]?.release()
    await Promise.all(later)
    expect(settled).toHaveLength(6)
    expect(held.calls).toHaveLength(2)
  })

  it('a commit made before an in-flight sync started shares it', async () => {
    const wal = walSync(db)
    insert()
    const first = wal.durable()
    const second = wal.durable() // nothing committed in between: the same sync covers it
    await held.startedCount(1)
    held.calls[0]?.release()
    await Promise.all([first, second])
    expect(held.calls).toHaveLength(1)
  })

  it('a failed sync rejects the waiters it covered and every one after, never those settled before, and tells the health', async () => {
    const wal = walSync(db)
    insert()
    const before = wal.durable()
    await held.startedCount(1)
    held.calls[0]?.release()
    await before

    insert()
    const covered = [wal.durable(), wal.durable()]
    await held.startedCount(2)
    insert()
    const next = wal.durable() // waits for the sync after the failing one
    held.calls[1]?.fail(eio())
    const outcomes = await Promise.allSettled([...covered, next])
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
    for (const o of outcomes) expect(hostFaultCode((o as PromiseRejectedResult).reason)).toBe('EIO')
    expect(failures).toHaveLength(1)

    // Linux may have dropped the pages it could not write: no later sync is trusted.
    insert()
    await expect(wal.durable()).rejects.toThrow(/WAL sync/)
    expect(held.calls).toHaveLength(2)
  })

  it('WriteBatcher settles a write only after the sync that covers its commit; a failed sync fails it with the fault', async () => {
    const batcher = new WriteBatcher(db, { name: 'test' })
    const outside = new Database(join(dir, 'diagnostic.db'), { readonly: true })
    let settled = false
    const written = batcher
      .run(() => insert().lastInsertRowid)
      .then((id) => {
        settled = true
        return id
      })
    await held.startedCount(1)
    // Committed (another connection sees it) but not acknowledged while its sync is held.
    expect(outside.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(1)
    await turn()
    expect(settled).toBe(false)
    held.calls[0]?.release()
    expect(await written).toBe(1)

    const failed = batcher.run(() => insert())
    await held.startedCount(2)
    held.calls[1]?.fail(eio())
    const error = await failed.catch((e: unknown) => e)
    expect(hostFaultCode(error)).toBe('EIO')
    outside.close()
  })
})

describe('the WAL file it syncs', () => {
  it('is the file at <db>-wal, and a missing one is refused rather than made', () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-wal-file-'))
    const file = join(dir, 'diagnostic.db')
    const db = new Database(file)
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE t (x)')
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(0)
    openWalFile(file).close()
    db.close() // the last connection checkpoints and deletes the WAL
    expect(() => openWalFile(file)).toThrow(/ENOENT/)
    expect(() => statSync(`${file}-wal`)).toThrow(/ENOENT/)
    rmSync(dir, { recursive: true, force: true })
  })

  it('a connection opened by openDatabase holds the WAL: another connection closing does not delete it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-wal-held-'))
    const file = join(dir, 'diagnostic.db')
    const db = openDatabase(file)
    const before = statSync(`${file}-wal`).ino
    const other = new Database(file)
    other.exec('CREATE TABLE t (x)')
    other.close()
    expect(statSync(`${file}-wal`).ino).toBe(before)
    db.exec('CREATE TABLE u (x)')
    await walSync(db).durable()
    await closeDatabase(db)
    expect(() => unlinkSync(`${file}-wal`)).toThrow(/ENOENT/) // deleted at the last close
    rmSync(dir, { recursive: true, force: true })
  })
})
