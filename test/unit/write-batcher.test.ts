import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'

describe('WriteBatcher (group commit of the worker)', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'diag-batch-')), 'diagnostic.db')
  const db = openDatabase(file)
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO notes (id, text) VALUES (?, ?)')
  const count = db.prepare('SELECT count(*) FROM notes').pluck()
  // Another connection sees only what is committed.
  const outside = new Database(file, { readonly: true })
  const committed = (id: number) => outside.prepare('SELECT count(*) FROM notes WHERE id = ?').pluck().get(id) === 1

  it('commits the writes of one turn together, in order, and settles each only after the commit', async () => {
    const batcher = new WriteBatcher(db, { name: 'test' })
    const write = (id: number) =>
      batcher.run(() => {
        expect(db.inTransaction).toBe(true)
        insert.run(id, `note ${id}`)
        return count.get()
      })
    const first = write(1).then((seen) => [seen, committed(1), committed(2)])
    const second = write(2).then((seen) => [seen, committed(2)])
    expect(committed(1)).toBe(false) // nothing runs before the turn ends
    expect(await first).toEqual([1, true, true]) // both were in the one commit
    expect(await second).toEqual([2, true])
  })

  it('loses only the write that fails', async () => {
    const batcher = new WriteBatcher(db, { name: 'test' })
    const good = batcher.run(() => insert.run(10, 'ten'))
    const bad = batcher.run(() => insert.run(10, 'ten again')) // primary key taken
    const after = batcher.run(() => insert.run(11, 'eleven'))
    await expect(bad).rejects.toThrow(/UNIQUE/)
    await Promise.all([good, after])
    expect([committed(10), committed(11)]).toEqual([true, true])
  })
})
