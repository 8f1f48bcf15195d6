import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ExpiredOccurrence } from '../../src/store/incident-expiry.js'
import type { IngestOutcome, IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { pgExpireOccurrences } from '../../src/store/postgres/expiry.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { expireOccurrences } from '../../src/store/sqlite/expiry.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// The incident lifecycle where Alertmanager's merge rules decide it (docs/design.md,
// "Incidents"), on both storage adapters.

/** The adapters' clock, so that receipts are known instants. */
const clock = { now: 0 }

interface Opened {
  writer: IngestStore
  expire(cutoff: number): Promise<ExpiredOccurrence[]>
  rows(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-lifecycle-')), 'l.db'))
  const writer = new EventWriter(db, { queueCapacity: 100, now: () => clock.now })
  return {
    writer,
    expire: async (cutoff) => expireOccurrences(db, cutoff, clock.now, writer.heard),
    rows: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
    close: async () => void db.close(),
  }
}

const server = postgresForFile()
const postgres = async (): Promise<Opened> => {
  const db = await server.database()
  const writer = new PgEventWriter(db.pool, { queueCapacity: 100, now: () => clock.now })
  return {
    writer,
    expire: (cutoff) => pgExpireOccurrences(db.pool, cutoff, clock.now, writer.heard),
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

  it('closes an open occurrence no longer heard as expired; its repeat opens it again, its resolution resolves it', async () => {
    store = await open()
    try {
      clock.now = at('2026-11-22T05:01:00Z')
      const silent = await submit('x1', { instance: 'app-03' })
      const repeated = await submit('x2')
      clock.now = at('2026-11-23T06:00:00Z')
      // A repeat heard and not yet written keeps its occurrence.
      expect(await submit('x2')).toMatchObject({ duplicate: true, incidentId: repeated.incidentId })
      const expired = await store.expire(at('2026-11-23T05:00:00Z'))
      expect(expired).toEqual([
        {
          id: silent.incidentId,
          alertname: 'A',
          instance: 'app-03',
          fingerprint: 'x1',
          last_heard_at: at('2026-11-22T05:01:00Z'),
        },
      ])
      expect(await incident(silent.incidentId)).toEqual({ status: 'expired', ended_at: at('2026-11-22T05:01:00Z') })
      expect(await incident(repeated.incidentId)).toEqual({ status: 'open', ended_at: null })
      expect(await store.expire(at('2026-11-23T05:00:00Z'))).toEqual([])

      // Still firing after all: open again, without a second diagnosis; its copies are duplicates.
      const again = await submit('x1', { instance: 'app-03' })
      expect(again).toMatchObject({ duplicate: false, transition: 'reopened', incidentId: silent.incidentId })
      expect(await incident(silent.incidentId)).toEqual({ status: 'open', ended_at: null })
      expect(await submit('x1', { instance: 'app-03' })).toMatchObject({ duplicate: true, transition: 'duplicate' })
      const queued = await store.rows(`SELECT q.id FROM queue_items q JOIN events e ON e.id = q.event_id
        WHERE e.incident_id = '${silent.incidentId}'`)
      expect(queued).toHaveLength(1)

      // Expired again, and then its resolution comes: resolved, with its recovery.
      clock.now = at('2026-11-25T06:00:00Z')
      expect((await store.expire(at('2026-11-25T05:00:00Z'))).map((o) => o.id)).toContain(silent.incidentId)
      const ended = await submit('x1', { status: 'resolved', instance: 'app-03', endsAt: at('2026-11-24T00:00:00Z') })
      expect(ended).toMatchObject({ transition: 'resolved', incidentId: silent.incidentId })
      expect(await incident(silent.incidentId)).toEqual({ status: 'resolved', ended_at: at('2026-11-24T00:00:00Z') })
      const [event] = await store.rows(`SELECT after_event_id FROM events WHERE id = '${ended.eventId}'`)
      expect(event?.after_event_id).toBe(silent.eventId)
    } finally {
      await store.close()
    }
  })
})
