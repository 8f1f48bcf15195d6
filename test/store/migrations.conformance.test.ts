import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres } from '../../src/store/postgres/migrate.js'
import { createPool } from '../../src/store/postgres/pool.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { postgresForFile } from '../helpers/postgres.js'

// Each adapter says each migration it runs, once (docs/operations.md, "Reading the log").

type Line = { obj: Record<string, unknown>; msg: string }
const server = postgresForFile()
afterAll(() => server.stop())

describe('migrations, as the log says them', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('on SQLite: one line per migration run, none when there is nothing to run', () => {
    const lines: Line[] = []
    const log = { info: (obj: object, msg: string) => void lines.push({ obj: obj as Line['obj'], msg }) }
    const file = join(mkdtempSync(join(tmpdir(), 'diag-migrations-')), 'm.db')
    openDatabase(file, log).close()
    expect(lines.map((l) => l.obj.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect(lines[7]).toEqual({
      msg: 'migration applied',
      obj: { database: 'sqlite', version: 8, name: '0008_expired_occurrences.sql', ms: expect.any(Number) },
    })
    openDatabase(file, log).close()
    expect(lines).toHaveLength(11)
  })

  it('on PostgreSQL: one line per migration run, after the run committed; none the second time', async () => {
    const lines: Line[] = []
    const log = { info: (obj: object, msg: string) => void lines.push({ obj: obj as Line['obj'], msg }) }
    const url = await (await server.start()).createDatabase('migrations_logged')
    const pool = createPool(url, { timeoutMs: 10_000, max: 2 })
    try {
      await migratePostgres(pool, undefined, log)
      expect(lines.map((l) => l.obj)).toEqual([
        { database: 'postgres', version: 1, name: '0001_schema.sql', ms: expect.any(Number) },
        { database: 'postgres', version: 2, name: '0002_expired_occurrences.sql', ms: expect.any(Number) },
        { database: 'postgres', version: 3, name: '0003_rule_exceptions.sql', ms: expect.any(Number) },
        { database: 'postgres', version: 4, name: '0004_queue_depth.sql', ms: expect.any(Number) },
        { database: 'postgres', version: 5, name: '0005_console.sql', ms: expect.any(Number) },
        { database: 'postgres', version: 6, name: '0006_evidence_and_timeline.sql', ms: expect.any(Number) },
      ])
      await migratePostgres(pool, undefined, log)
      expect(lines).toHaveLength(6)
    } finally {
      await pool.end()
    }
  })
})
