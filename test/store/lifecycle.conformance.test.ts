import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { IngestOutcome, IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// The incident lifecycle where Alertmanager's merge rules decide it (docs/design.md,
// "Incidents"), on both storage adapters.

/** The adapters' clock, so that receipts are known instants. */
const clock = { now: 0 }

interface Opened {
  writer: IngestStore
  rows(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-lifecycle-')), 'l.db'))
  return {
    writer: new EventWriter(db, { queueCapacity: 100, now: () => clock.now }),
    rows: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
    close: async () => void db.close(),
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database()
  return {
    writer: new PgEventWriter(db.pool, { queueCapacity: 100, now: () => clock.now }),
    rows: db.rows,
    close: db.close,
  }
}

afterAll(() => server.stop())

const at = (text: string) => Date.parse(text)
const accepted = (outcome: IngestOutcome) => {
  if (outcome.kind !== 'accepted') throw new Error(`expected accepted, got ${outcome.kind}`)
  return outcome.events[0] as (typeof outcome.events)[number]
}

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('incident lifecycle on %s', (_name, open) => {
  beforeAll(async () => {
    if (open === postgres) await server.start()
  }, 120_000)

  let store: Opened
  beforeEach(() => {
    clock.now = at('2026-11-22T06:00:00Z')
  })
  const submit = async (...args: Parameters<typeof alertEvent>) =>
    accepted(await store.writer.submit({ receiver: 'r', groupKey: 'g', principal: 'p', alerts: [alertEvent(...args)] }))
  const incident = async (id: string) =>
    (await store.rows(`SELECT status, ended_at FROM incidents WHERE id = '${id}'`)).map((r) => ({
      status: r.status,
      ended_at: r.ended_at === null ? null : Number(r.ended_at),
    }))[0]

  it('ends the open occurrence with a resolution whose start Alertmanager merged to an earlier one', async () => {
    store = await open()
    try {
      clock.now = at('2026-11-22T05:01:00Z')
      const fired = await submit('m1', { startsAt: at('2026-11-22T05:00:00.700Z') })
      clock.now = at('2026-11-22T05:06:00Z')
      // Re-sent with a start half a second earlier and ended: Alertmanager keeps the earlier start.
      const resolution = { status: 'resolved' as const, startsAt: at('2026-11-22T05:00:00Z') }
      const ended = await submit('m1', { ...resolution, endsAt: at('2026-11-22T05:05:00Z') })
      expect(ended).toMatchObject({ duplicate: false, transition: 'resolved_merged', incidentId: fired.incidentId })
      expect(await incident(fired.incidentId)).toEqual({ status: 'resolved', ended_at: at('2026-11-22T05:05:00Z') })
      // Its recovery is queued after the diagnosis; nothing else was filed.
      const [event] = await store.rows(`SELECT after_event_id FROM events WHERE id = '${ended.eventId}'`)
      expect(event?.after_event_id).toBe(fired.eventId)
      expect((await store.rows('SELECT id FROM queue_items')).length).toBe(2)
      expect((await store.rows('SELECT id FROM incidents')).length).toBe(1)
      // Its copy, from the other peer of an HA pair, is a duplicate of it.
      const copy = await submit('m1', { ...resolution, endsAt: at('2026-11-22T05:05:00Z') })
      expect(copy).toMatchObject({ duplicate: true, eventId: ended.eventId, incidentId: fired.incidentId })
    } finally {
      await store.close()
    }
  })

  it('keeps the open occurrence open for the resolution of an earlier one that ended before it began', async () => {
    store = await open()
    try {
      const fired = await submit('m2', { startsAt: at('2026-11-22T05:00:00Z') })
      const old = await submit('m2', {
        status: 'resolved',
        startsAt: at('2026-11-22T04:00:00Z'),
        endsAt: at('2026-11-22T04:30:00Z'),
      })
      expect(old).toMatchObject({ transition: 'unmatched_resolution' })
      expect(old.incidentId).not.toBe(fired.incidentId)
      expect(await incident(fired.incidentId)).toEqual({ status: 'open', ended_at: null })
    } finally {
      await store.close()
    }
  })

  it('ends the open occurrence when a firing of the merged start came first and was filed as ended', async () => {
    store = await open()
    try {
      const fired = await submit('m3', { startsAt: at('2026-11-22T05:00:00.700Z') })
      // Alertmanager's repeat, after the merge, carries the earlier start.
      const repeat = await submit('m3', { startsAt: at('2026-11-22T05:00:00Z') })
      expect(repeat).toMatchObject({ transition: 'stale_firing' })
      const ended = await submit('m3', {
        status: 'resolved',
        startsAt: at('2026-11-22T05:00:00Z'),
        endsAt: at('2026-11-22T05:05:00Z'),
      })
      expect(ended).toMatchObject({ transition: 'resolved_merged', incidentId: fired.incidentId })
      expect(await incident(fired.incidentId)).toEqual({ status: 'resolved', ended_at: at('2026-11-22T05:05:00Z') })
    } finally {
      await store.close()
    }
  })
})
