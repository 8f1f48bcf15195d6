import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WorkQueue } from '../../src/queue/work-queue.js'
import type { IncidentsReader } from '../../src/store/incident-views.js'
import type { IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { PgIncidentsRepository } from '../../src/store/postgres/incidents-repository.js'
import { pgWorkerStore } from '../../src/store/postgres/worker-store.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { IncidentsRepository } from '../../src/store/sqlite/incidents-repository.js'
import { sqliteWorkerStore } from '../../src/store/sqlite/worker-store.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'
import type { WorkerStore } from '../../src/worker/ports.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// The incidents API's read side on both adapters: the same answers to the same history.

/** One notification a second, whichever adapter: the order of the history is its clock's. */
const clock = { now: 0 }

interface Opened {
  writer: IngestStore
  worker: WorkerStore
  incidents: IncidentsReader
  close(): Promise<void>
}

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-incidents-')), 'i.db'))
  const queue = new WorkQueue(db, { leaseMs: 60_000, maxExpiries: 3 })
  return {
    writer: new EventWriter(db, { queueCapacity: 100, now: () => clock.now }),
    worker: sqliteWorkerStore(db, new WriteBatcher(db, { name: 'worker' }), queue),
    incidents: new IncidentsRepository(db),
    close: async () => void db.close(),
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database()
  return {
    writer: new PgEventWriter(db.pool, { queueCapacity: 100, now: () => clock.now }),
    worker: pgWorkerStore(db.pool),
    incidents: new PgIncidentsRepository(db.pool),
    close: db.close,
  }
}

afterAll(() => server.stop())

/** The same history on either adapter; what the reader answers, without its generated ids. */
async function history(store: Opened) {
  clock.now = 1_000_000
  const submit = async (...alerts: ReturnType<typeof alertEvent>[]) => {
    clock.now += 1000
    const outcome = await store.writer.submit({ receiver: 'r', groupKey: 'g', principal: 'p', alerts })
    if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
    return outcome
  }
  const [e1] = (await submit(alertEvent('i1', { instance: 'app-01' }))).events
  await submit(alertEvent('i2', { instance: 'app-02' }))
  await submit(alertEvent('i3', { instance: 'app-02' }))
  await submit(alertEvent('i1', { status: 'resolved', endsAt: 1_000_500 }))
  if (!e1) throw new Error('an event expected')
  await store.worker.commit({
    eventId: e1.eventId,
    incidentId: e1.incidentId,
    kind: 'diagnosis',
    // A log line's NUL byte is escaped in the stored JSON, which PostgreSQL's jsonb refuses.
    result: {
      primary: { branch: 'TD-02', excerpt: 'a line with a NUL \u0000 byte' },
      matches: [],
      trace: ['never shown'],
    },
    headline: {
      branch: 'TD-02',
      ruleName: 'JavaHeapExhausted',
      category: 'jvm_memory',
      classification: 'probable_cause',
    },
    mail: {
      eventId: e1.eventId,
      kind: 'diagnosis',
      afterEventId: null,
      messageId: '<m@x>',
      inReplyTo: null,
      subject: 'report',
      recipients: ['a@example.com'],
      text: 't',
      html: 'h',
    },
    now: 1_000_000,
  })
  const strip = (value: unknown) =>
    JSON.parse(JSON.stringify(value, (key, v) => (['id', 'eventId', 'supersededBy'].includes(key) ? '*' : v)))
  const all = await store.incidents.list({ limit: 10 })
  const pages: unknown[] = []
  let page = await store.incidents.list({ limit: 1 })
  pages.push(page.incidents.map((i) => i.instance))
  while (page.next) {
    page = await store.incidents.list({ limit: 1, after: page.next })
    pages.push(page.incidents.map((i) => i.instance))
  }
  const detail = await store.incidents.get(e1.incidentId, { limit: 1 })
  const rest = detail?.nextEvents
    ? await store.incidents.get(e1.incidentId, { limit: 1, after: detail.nextEvents })
    : undefined
  return {
    list: strip(all.incidents),
    app02: (await store.incidents.list({ limit: 10, instance: 'app-02' })).incidents.length,
    resolved: (await store.incidents.list({ limit: 10, status: 'resolved' })).incidents.length,
    since: (await store.incidents.list({ limit: 10, since: 1_002_000 })).incidents.length,
    pages: pages.flat().length,
    detail: strip({ ...detail, nextEvents: detail?.nextEvents ? 'more' : null }),
    rest: strip(rest?.events),
    missing: await store.incidents.get('no-such-incident'),
  }
}

describe('incidents reader on SQLite and PostgreSQL', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('answers the same history the same way', async () => {
    const answers = []
    for (const open of [sqlite, postgres]) {
      const store = await open()
      try {
        answers.push(await history(store))
      } finally {
        await store.close()
      }
    }
    const [onSqlite, onPostgres] = answers
    expect(onSqlite).toMatchObject({ app02: 2, resolved: 1, since: 2, pages: 3, missing: undefined })
    expect(JSON.stringify(onSqlite)).not.toContain('never shown')
    expect(onSqlite?.detail).toMatchObject({ status: 'resolved', diagnosis: { primary: { branch: 'TD-02' } } })
    expect(onSqlite?.rest).toHaveLength(1)
    expect(onSqlite?.detail).toMatchObject({ diagnosis: { primary: { excerpt: 'a line with a NUL \u0000 byte' } } })
    expect(onPostgres).toEqual(onSqlite)
  })
})
