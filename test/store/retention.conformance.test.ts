import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { pgPruneOlderThan } from '../../src/store/postgres/housekeeping.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { type Pruned, pruneOlderThan } from '../../src/store/sqlite/retention.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// Retention (D22) on both adapters: an occurrence goes once it was last heard before the
// cut, its duplicates counting even when their hearing is not yet written.

interface Opened {
  writer: { submit: EventWriter['submit']; heard: { heard(id: string, at: number): void } }
  prune(cutoff: number): Promise<Pruned | undefined>
  sql(query: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-retention-')), 'r.db'))
  const writer = new EventWriter(db, { queueCapacity: 100 })
  return {
    writer,
    prune: async (cutoff) => pruneOlderThan(db, cutoff, writer.heard),
    sql: async (query) => {
      const statement = db.prepare(query)
      if (statement.reader) return statement.all() as Array<Record<string, unknown>>
      statement.run()
      return []
    },
    close: async () => void db.close(),
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database()
  const writer = new PgEventWriter(db.pool, { queueCapacity: 100 })
  return { writer, prune: (cutoff) => pgPruneOlderThan(db.pool, cutoff, writer.heard), sql: db.rows, close: db.close }
}

afterAll(() => server.stop())

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('retention on %s', (_name, open) => {
  beforeAll(async () => {
    if (open === postgres) await server.start()
  }, 120_000)

  it('removes what went quiet, keeps what is still heard or still queued', async () => {
    const store = await open()
    try {
      const outcome = await store.writer.submit({
        receiver: 'r',
        groupKey: 'g',
        principal: 'p',
        alerts: ['quiet', 'heard', 'queued', 'recent'].map((id) => alertEvent(id)),
      })
      if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
      const incident = (i: number) => outcome.events[i]?.incidentId as string
      await store.sql(
        "UPDATE queue_items SET status = 'done' WHERE event_id NOT IN (SELECT id FROM events WHERE identity = 'queued')",
      )
      await store.sql("UPDATE incidents SET last_heard_at = 10 WHERE identity IN ('quiet', 'heard', 'queued')")
      // A repeat of "heard" answered without a write: its hearing waits in memory.
      store.writer.heard.heard(incident(1), Date.now())
      const pruned = await store.prune(1000)
      expect(pruned?.records).toBe(2) // the quiet incident and its one event
      expect(pruned?.eventIds).toEqual([outcome.events[0]?.eventId])
      const left = await store.sql('SELECT identity FROM incidents ORDER BY identity')
      expect(left.map((row) => row.identity)).toEqual(['heard', 'queued', 'recent'])
    } finally {
      await store.close()
    }
  })
})

describe('retention on PostgreSQL, two replicas at once', () => {
  it('runs once: the replica that does not get the lock skips', async () => {
    const store = await postgres()
    try {
      await store.writer.submit({
        receiver: 'r',
        groupKey: 'g',
        principal: 'p',
        alerts: Array.from({ length: 20 }, (_, i) => alertEvent(`old-${i}`)),
      })
      await store.sql("UPDATE queue_items SET status = 'done'")
      await store.sql('UPDATE incidents SET last_heard_at = 10')
      const runs = await Promise.all([store.prune(1000), store.prune(1000), store.prune(1000)])
      const done = runs.filter((run) => run !== undefined) as Pruned[]
      expect(done.reduce((sum, run) => sum + run.records, 0)).toBe(40)
      expect(await store.sql('SELECT id FROM incidents')).toEqual([])
    } finally {
      await store.close()
    }
  }, 120_000)
})
