import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { WorkQueue } from '../../src/queue/work-queue.js'
import { encodeBundle } from '../../src/rules/bundle/bundle-bounds.js'
import { decodeBundle, type EncodedBundle } from '../../src/rules/bundle/evidence-bundle.js'
import type { EvidenceBundleStore, StoredBundle } from '../../src/store/evidence-bundles.js'
import type { IncidentsReader } from '../../src/store/incident-views.js'
import type { IngestStore } from '../../src/store/ingest-port.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { pgEvidenceBundles } from '../../src/store/postgres/evidence-bundles.js'
import { pgPruneOlderThan } from '../../src/store/postgres/housekeeping.js'
import { PgIncidentsRepository } from '../../src/store/postgres/incidents-repository.js'
import { PgWorkQueue } from '../../src/store/postgres/work-queue.js'
import { pgWorkerStore } from '../../src/store/postgres/worker-store.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { sqliteEvidenceBundles } from '../../src/store/sqlite/evidence-bundles.js'
import { IncidentsRepository } from '../../src/store/sqlite/incidents-repository.js'
import { pruneOlderThan } from '../../src/store/sqlite/retention.js'
import { sqliteWorkerStore } from '../../src/store/sqlite/worker-store.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'
import type { Lease, WorkerStore } from '../../src/worker/ports.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// What the console and the replay read (docs/design.md, "Stored evidence"; docs/api.md,
// "Explanation", "Timeline") on both adapters: each diagnosed event's evidence bundle, the
// last N of them newest first, an incident's explanation and its timeline, duplicates
// counted by sender; retention removes them with their incident.

interface Opened {
  writer: IngestStore
  store: WorkerStore
  claim(): Promise<Lease | undefined>
  bundles: EvidenceBundleStore
  incidents: IncidentsReader
  /** The duplicates' hearing written now (retention and the minute's timer do it in the service). */
  writeHeard(): Promise<void>
  prune(cutoff: number): Promise<unknown>
  rows(sql: string): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-evidence-')), 'e.db'))
  const queue = new WorkQueue(db, { leaseMs: 60_000, maxExpiries: 3 })
  const writer = new EventWriter(db, { queueCapacity: 1000 })
  return {
    writer,
    store: sqliteWorkerStore(db, new WriteBatcher(db, { name: 'worker' }), queue),
    claim: async () => queue.claimMany(1)[0],
    bundles: sqliteEvidenceBundles(db),
    incidents: new IncidentsRepository(db),
    writeHeard: async () => writer.heard.write(),
    prune: async (cutoff) => pruneOlderThan(db, cutoff, writer.heard),
    rows: async (sql) => {
      const statement = db.prepare(sql)
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
  const queue = new PgWorkQueue(db.pool, { leaseMs: 60_000, maxExpiries: 3 })
  const writer = new PgEventWriter(db.pool, { queueCapacity: 1000 })
  return {
    writer,
    store: pgWorkerStore(db.pool),
    claim: async () => (await queue.claimMany(1))[0],
    bundles: pgEvidenceBundles(db.pool),
    incidents: new PgIncidentsRepository(db.pool),
    writeHeard: () => writer.heard.write(),
    prune: (cutoff) => pgPruneOlderThan(db.pool, cutoff, writer.heard),
    rows: db.rows,
    close: db.close,
  }
}

afterAll(() => server.stop())

const alert = { alertname: 'A', instance: 'app-01', severity: 'critical' }
const bundleOf = (text: string) =>
  encodeBundle({ evidence: withLogText(emptyEvidence(alert), text), excerpt: null, values: {} })

const explanation = { version: 1, rules: [], ranking: [], omitted: { matched: 0, almostMatched: 0, ranking: 0 } }
const timingsFrom = (at: number) => [
  { source: 'logs', startedAt: at, durationMs: 40, outcome: 'ok' },
  { source: 'probe', startedAt: at, durationMs: 2000, outcome: 'timeout', detail: 'timed out' },
]

/** One firing alert, claimed and diagnosed at `now` with `bundle`. */
async function diagnosed(store: Opened, identity: string, bundle: EncodedBundle, now: number) {
  const outcome = await store.writer.submit({
    receiver: 'am',
    groupKey: 'g',
    principal: 'prom-a',
    alerts: [alertEvent(identity)],
  })
  if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
  const { eventId, incidentId } = outcome.events[0] as { eventId: string; incidentId: string }
  const lease = await store.claim()
  if (!lease) throw new Error('a lease expected')
  // A log line's NUL byte is escaped in the stored JSON, which PostgreSQL's jsonb refuses.
  const primary = {
    branch: 'TD-02',
    classification: 'probable_cause',
    confidence: 'medium',
    basis: 'a NUL \u0000 byte',
  }
  const committed = await store.store.commit({
    eventId,
    incidentId,
    kind: 'diagnosis',
    result: { primary, explanation, evidenceTimings: timingsFrom(now - 400) },
    headline: { branch: 'TD-02', ruleName: 'R', category: 'jvm_memory', classification: 'probable_cause' },
    bundle,
    mail: {
      eventId,
      kind: 'diagnosis',
      afterEventId: null,
      messageId: `<${eventId}@t>`,
      inReplyTo: null,
      subject: 's',
      recipients: ['o@example.com'],
      text: 't',
      html: 'h',
    },
    lease,
    now,
  })
  expect(committed).toBe(true)
  return { eventId, incidentId }
}

const collect = async (bundles: AsyncIterable<StoredBundle>) => {
  const all: StoredBundle[] = []
  for await (const bundle of bundles) all.push(bundle)
  return all
}

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
])('stored evidence and what the console reads, on %s', (_name, open) => {
  beforeAll(async () => {
    if (open === postgres) await server.start()
  }, 120_000)

  it('keeps each diagnosed event bundle, and reads the last N newest first, a page at a time', async () => {
    const store = await open()
    try {
      const bundle = await bundleOf('java.lang.OutOfMemoryError: Java heap space\n')
      const events: string[] = []
      // 40 diagnoses, two of them at each instant: the order is (created_at, event id), newest first.
      for (let i = 0; i < 40; i++)
        events.push((await diagnosed(store, `b${i}`, bundle, 1_000_000 + Math.floor(i / 2))).eventId)
      const one = await store.bundles.bundle(events[3] as string)
      expect(one).toMatchObject({
        eventId: events[3],
        encoding: 'br',
        format: 1,
        rawBytes: bundle.rawBytes,
        truncated: false,
      })
      expect(one?.bytes.equals(bundle.bytes)).toBe(true)
      expect((await decodeBundle(one?.bytes as Buffer)).excerpt?.toString()).toContain('OutOfMemoryError')
      expect(await store.bundles.bundle('no-such-event')).toBeUndefined()

      const expected = events
        .map((id, i) => ({ id, at: Math.floor(i / 2) }))
        .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
        .map((e) => e.id)
      expect((await collect(store.bundles.newest(25))).map((b) => b.eventId)).toEqual(expected.slice(0, 25))
      expect((await collect(store.bundles.newest(1000))).map((b) => b.eventId)).toEqual(expected)
      expect(await collect(store.bundles.newest(0))).toEqual([])
    } finally {
      await store.close()
    }
  })

  it('reads an incident explanation and its timeline: receipts, duplicates by sender, queue, evidence, diagnosis, mail', async () => {
    const store = await open()
    try {
      const bundle = await bundleOf('x\n')
      const diagnosedAt = Date.now() + 500
      const { incidentId } = await diagnosed(store, 'explained', bundle, diagnosedAt)
      // Two repeats from another sender (an HA peer with its own token), one from the first.
      for (const principal of ['prom-b', 'prom-b', 'prom-a']) {
        const again = await store.writer.submit({
          receiver: 'am',
          groupKey: 'g',
          principal,
          alerts: [alertEvent('explained')],
        })
        expect(again).toMatchObject({ kind: 'accepted', duplicates: 1 })
      }
      await store.writeHeard()

      const explained = await store.incidents.explanation(incidentId)
      expect(explained).toMatchObject({
        incidentId,
        primary: { branch: 'TD-02', basis: 'a NUL \u0000 byte' },
        explanation,
        evidence: { rawBytes: bundle.rawBytes, storedBytes: bundle.bytes.length, truncated: false },
      })
      expect(await store.incidents.explanation('no-such-incident')).toBeUndefined()

      const timeline = await store.incidents.timeline(incidentId)
      // In time order; the duplicates came in while the event was processed, so only the set is fixed here.
      const times = timeline?.entries.map((e) => Date.parse(e.at)) ?? []
      expect(times).toEqual([...times].sort((a, b) => a - b))
      expect(timeline?.entries.map((e) => e.kind).sort()).toEqual(
        [
          'received',
          'duplicates',
          'duplicates',
          'queued',
          'claimed',
          'evidence',
          'evidence',
          'diagnosed',
          'mailed',
        ].sort(),
      )
      expect(timeline?.entries[0]?.kind).toBe('received')
      const entry = (kind: string) => timeline?.entries.find((e) => e.kind === kind) as unknown
      expect(entry('received')).toMatchObject({
        principal: 'prom-a',
        receiver: 'am',
        status: 'firing',
        transition: 'opened',
      })
      const duplicates = timeline?.entries.filter((e) => e.kind === 'duplicates')
      expect(
        duplicates?.map((d) => [(d as { principal: string }).principal, (d as { count: number }).count]).sort(),
      ).toEqual([
        ['prom-a', 1],
        ['prom-b', 2],
      ])
      expect(entry('claimed')).toMatchObject({ attempts: 1, status: 'done' })
      expect(entry('evidence')).toMatchObject({
        source: 'logs',
        durationMs: 40,
        outcome: 'ok',
        at: new Date(diagnosedAt - 400).toISOString(),
      })
      expect(entry('diagnosed')).toMatchObject({
        branch: 'TD-02',
        confidence: 'medium',
        at: new Date(diagnosedAt).toISOString(),
      })
      expect(entry('mailed')).toMatchObject({ mail: 'diagnosis', status: 'pending', durationMs: null })
      expect(timeline?.nextEvents).toBeNull()
      expect(await store.incidents.timeline('no-such-incident')).toBeUndefined()
    } finally {
      await store.close()
    }
  })

  it('an incident not diagnosed yet has no explanation; retention removes bundles and duplicate counts with it', async () => {
    const store = await open()
    try {
      const waiting = await store.writer.submit({
        receiver: 'am',
        groupKey: 'g',
        principal: 'p',
        alerts: [alertEvent('waiting')],
      })
      if (waiting.kind !== 'accepted') throw new Error(waiting.kind)
      expect(await store.incidents.explanation(waiting.events[0]?.incidentId as string)).toBeNull()
      await store.rows("UPDATE queue_items SET status = 'done'")

      await diagnosed(store, 'old', await bundleOf('x\n'), 5)
      await store.writer.submit({ receiver: 'am', groupKey: 'g', principal: 'p', alerts: [alertEvent('old')] })
      await store.writeHeard()
      expect((await store.rows('SELECT duplicates FROM alert_duplicates')).map((r) => Number(r.duplicates))).toEqual([
        1,
      ])
      await store.rows('UPDATE incidents SET last_heard_at = 10')
      await store.prune(1000)
      expect(await store.rows('SELECT event_id FROM evidence_bundles')).toEqual([])
      expect(await store.rows('SELECT incident_id FROM alert_duplicates')).toEqual([])
    } finally {
      await store.close()
    }
  })
})
