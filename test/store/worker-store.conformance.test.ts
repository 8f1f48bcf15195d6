import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WorkQueue } from '../../src/queue/work-queue.js'
import type { IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { PgWorkQueue } from '../../src/store/postgres/work-queue.js'
import { pgWorkerStore } from '../../src/store/postgres/worker-store.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { sqliteWorkerStore } from '../../src/store/sqlite/worker-store.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'
import type { Lease, WorkerStore } from '../../src/worker/ports.js'
import { alertEvent, reportMail } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// The worker's store (worker/ports.ts) on both adapters (docs/design.md, "Storage"): one
// result, one mail and the queue item done in one commit, and never a second.

interface Opened {
  writer: IngestStore
  /** Two replicas' views: each its own store and queue on the one database. */
  replicas: Array<{ store: WorkerStore; claim(): Promise<Lease | undefined> }>
  rows(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const leaseMs = 60_000

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-worker-store-')), 'w.db'))
  const queue = new WorkQueue(db, { leaseMs, maxExpiries: 3 })
  const replica = {
    store: sqliteWorkerStore(db, new WriteBatcher(db, { name: 'worker' }), queue),
    claim: async () => queue.claimMany(1)[0],
  }
  return {
    writer: new EventWriter(db, { queueCapacity: 100 }),
    replicas: [replica, replica],
    rows: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
    close: async () => {
      db.close()
    },
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database(2)
  return {
    writer: new PgEventWriter(db.pool, { queueCapacity: 100 }),
    replicas: db.pools.map((pool) => {
      const queue = new PgWorkQueue(pool, { leaseMs, maxExpiries: 3 })
      return { store: pgWorkerStore(pool), claim: async () => (await queue.claimMany(1))[0] }
    }),
    rows: db.rows,
    close: db.close,
  }
}

afterAll(() => server.stop())

const mail = (eventId: string) => reportMail(eventId)

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('worker store on %s', (_name, open) => {
  beforeAll(async () => {
    if (open === postgres) await server.start()
  }, 120_000)

  it('reads the event and its incident, and commits one result, one mail and the lease done, once', async () => {
    const store = await open()
    try {
      const outcome = await store.writer.submit({
        receiver: 'r',
        groupKey: 'g',
        principal: 'p',
        alerts: [alertEvent('w1')],
      })
      if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
      const { eventId, incidentId } = outcome.events[0] as { eventId: string; incidentId: string }
      const [a, b] = store.replicas as [Opened['replicas'][0], Opened['replicas'][0]]
      const lease = await a.claim()
      if (!lease) throw new Error('a lease expected')
      const loaded = await a.store.load(eventId)
      expect(loaded?.event).toMatchObject({ id: eventId, incidentId, transition: 'opened', alertname: 'A' })
      expect(loaded?.incident).toMatchObject({ id: incidentId, status: 'open', startBelieved: true })
      expect(loaded?.incident).toEqual(await a.store.incident(incidentId))
      expect(loaded?.processed).toBe(false)
      expect(await a.store.predecessor(eventId)).toBe('waiting')
      const input = {
        eventId,
        incidentId,
        kind: 'diagnosis' as const,
        result: { branch: 'TD-02' },
        headline: { branch: 'TD-02', ruleName: 'R', category: 'jvm_memory', classification: 'probable_cause' },
        mail: mail(eventId),
        now: 5,
      }
      expect(await a.store.commit({ ...input, lease })).toBe(true)
      // Another replica that processed the same event commits nothing: no second report.
      expect(await b.store.commit({ ...input, mail: { ...mail(eventId), subject: 'another' } })).toBe(false)
      expect((await b.store.load(eventId))?.processed).toBe(true)
      expect(await b.store.predecessor(eventId)).toBe('done')
      expect(await store.rows('SELECT subject FROM outbox')).toEqual([{ subject: 'report' }])
      expect((await store.rows('SELECT status FROM queue_items')).map((r) => r.status)).toEqual(['done'])
      expect(await a.store.incident(incidentId)).toMatchObject({ headline: input.headline })
    } finally {
      await store.close()
    }
  })
})
