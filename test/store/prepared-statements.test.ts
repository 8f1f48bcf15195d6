import { afterAll, describe, expect, it } from 'vitest'
import { createPool } from '../../src/store/postgres/pool.js'
import { PreparedStatements } from '../../src/store/postgres/prepared.js'
import { postgresForFile } from '../helpers/postgres.js'

// The ingest's prepared statements (src/store/postgres/prepared.ts) on a real PostgreSQL.

const server = postgresForFile()
afterAll(() => server.stop())

const divide = 'SELECT 10 / $1::int AS n'

describe('prepared statements on PostgreSQL', () => {
  it('prepare once per connection, and a failed statement leaves the connection usable', async () => {
    const { url, close } = await server.database()
    // One connection: whatever a query leaves on it, the next query meets.
    const pool = createPool(url, { timeoutMs: 10_000, max: 1 })
    const statements = new PreparedStatements({ divide })
    try {
      expect((await statements.query<{ n: number }>(pool, { text: divide, values: [2] })).rows).toEqual([{ n: 5 }])
      await expect(statements.query(pool, { text: divide, values: [0] })).rejects.toMatchObject({ code: '22012' })
      expect((await statements.query<{ n: number }>(pool, { text: divide, values: [5] })).rows).toEqual([{ n: 2 }])
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
      const prepared = await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements')
      expect(prepared.rows).toEqual([{ name: 'diag_divide' }])
    } finally {
      await pool.end()
      await close()
    }
  }, 120_000)
})
