import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

/**
 * The durable floor: how many single-row commits per second better-sqlite3 reaches with
 * WAL and synchronous=FULL in `dir` (on the disk the service uses), one fsync each.
 */
export function measureCommitFloor(dir: string, seconds: number): number {
  const work = mkdtempSync(join(dir, 'floor-'))
  const db = new Database(join(work, 'floor.db'))
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)')
    const insert = db.prepare('INSERT INTO t (payload) VALUES (?)')
    const payload = 'x'.repeat(1024)
    const deadline = performance.now() + seconds * 1000
    let commits = 0
    const started = performance.now()
    while (performance.now() < deadline) {
      insert.run(payload)
      commits++
    }
    return commits / ((performance.now() - started) / 1000)
  } finally {
    db.close()
    rmSync(work, { recursive: true, force: true })
  }
}
