import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrationsDir, postgresMigrationsDir } from '../../src/paths.js'
import { WorkQueue } from '../../src/queue/work-queue.js'
import type { ConsoleStore } from '../../src/store/console-port.js'
import { type IncidentFilter, type IncidentsReader, listQuery } from '../../src/store/incident-views.js'
import type { IngestStore } from '../../src/store/ingest-port.js'
import { pgConsoleStore } from '../../src/store/postgres/console-store.js'
import { PgEventWriter } from '../../src/store/postgres/event-writer.js'
import { PgIncidentsRepository } from '../../src/store/postgres/incidents-repository.js'
import { migratePostgres } from '../../src/store/postgres/migrate.js'
import { createPool } from '../../src/store/postgres/pool.js'
import { pgWorkerStore } from '../../src/store/postgres/worker-store.js'
import { positional, sqliteNamed } from '../../src/store/sql-parameters.js'
import { sqliteConsoleStore } from '../../src/store/sqlite/console-store.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { IncidentsRepository } from '../../src/store/sqlite/incidents-repository.js'
import { runMigrations } from '../../src/store/sqlite/migrate.js'
import { sqliteWorkerStore } from '../../src/store/sqlite/worker-store.js'
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js'
import type { Headline, WorkerStore } from '../../src/worker/ports.js'
import { alertEvent } from '../helpers/events.js'
import { postgresForFile } from '../helpers/postgres.js'

// The web console's store reads and sessions on both adapters (docs/design.md, "The web
// console"): the list's new filters and keyset pages, the incident page's timeline (the
// incidents API's), mails and earlier occurrences, the charts' aggregates, the rules' decisions, the sessions.

const dayMs = 86_400_000
// The UTC day of the alerts' start (test/helpers/events.ts), so that every start is believed.
const day0 = Date.parse('2026-11-22T00:00:00Z')
const clock = { now: 0 }

interface Opened {
  writer: IngestStore
  worker: WorkerStore
  incidents: IncidentsReader
  console: ConsoleStore
  /** A statement with `?` placeholders, for what the test sets up by hand. */
  exec(sql: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

const sqlite = async (): Promise<Opened> => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-console-')), 'c.db'))
  const queue = new WorkQueue(db, { leaseMs: 60_000, maxExpiries: 3 })
  return {
    writer: new EventWriter(db, { queueCapacity: 100, now: () => clock.now }),
    worker: sqliteWorkerStore(db, new WriteBatcher(db, { name: 'worker' }), queue),
    incidents: new IncidentsRepository(db),
    console: sqliteConsoleStore(db),
    exec: async (sql, ...params) => {
      const statement = db.prepare(sql)
      if (statement.reader) return statement.all(...params) as Array<Record<string, unknown>>
      statement.run(...params)
      return []
    },
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
    console: pgConsoleStore(db.pool),
    exec: async (sql, ...params) => {
      let n = 0
      return (
        await db.pool.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows
    },
    close: db.close,
  }
}

afterAll(() => server.stop())

// Two label values alike in their first 200 characters: the index finds both, the list one.
const longInstance = (end: string) => `${'x'.repeat(250)}${end}`

async function history(store: Opened) {
  clock.now = day0 + 6.5 * 3_600_000
  const submit = async (event: ReturnType<typeof alertEvent>, after = 1000) => {
    clock.now += after
    const outcome = await store.writer.submit({ receiver: 'r', groupKey: 'g', principal: 'am', alerts: [event] })
    if (outcome.kind !== 'accepted' || !outcome.events[0]) throw new Error(outcome.kind)
    return outcome.events[0]
  }
  const diagnose = async (
    event: { eventId: string; incidentId: string },
    headline: Headline,
    sentAfterMs: number | null,
    kind: 'diagnosis' | 'recovery' = 'diagnosis',
  ) => {
    await store.worker.commit({
      eventId: event.eventId,
      incidentId: event.incidentId,
      kind,
      result: { primary: { branch: headline.branch, confidence: headline.confidence } },
      ...(kind === 'diagnosis' ? { headline } : {}),
      mail: {
        eventId: event.eventId,
        kind,
        afterEventId: null,
        messageId: `<${event.eventId}@x>`,
        inReplyTo: null,
        subject: `${kind} ${headline.branch}`,
        recipients: ['a@example.com'],
        text: `the ${kind} report`,
        html: '<p>h</p>',
      },
      now: clock.now + 100,
    })
    if (sentAfterMs !== null) {
      await store.exec(
        "UPDATE outbox SET status = 'sent', sent_at = ? WHERE event_id = ?",
        clock.now + sentAfterMs,
        event.eventId,
      )
    }
  }
  const td02 = (confidence: string): Headline => ({
    branch: 'TD-02',
    ruleName: 'JavaHeapExhausted',
    category: 'jvm_memory',
    classification: 'probable_cause',
    confidence,
  })
  const ah01: Headline = {
    branch: 'AH-01',
    ruleName: 'ContainerOomKilled',
    category: 'jvm_memory',
    classification: 'confirmed_cause',
    confidence: 'high',
  }
  const first = await submit(alertEvent('a', { alertname: 'A' }))
  await diagnose(first, td02('medium'), 2000)
  const second = await submit(alertEvent('b', { alertname: 'B', instance: longInstance('1') }))
  await diagnose(second, ah01, 20_000)
  const third = await submit(alertEvent('c', { alertname: 'A', instance: longInstance('2') }))
  // The same alert again, a day later, with a later start: a new occurrence.
  const later = Date.parse('2026-11-23T06:00:00Z')
  const fourth = await submit(
    alertEvent('a', { alertname: 'A', startsAtText: new Date(later).toISOString(), startsAt: later }),
    dayMs,
  )
  await diagnose(fourth, td02('high'), null)
  const resolved = await submit(alertEvent('b', { alertname: 'B', instance: longInstance('1'), status: 'resolved' }))
  await diagnose(resolved, ah01, 500, 'recovery')

  const ids = { first: first.incidentId, second: second.incidentId, third: third.incidentId, fourth: fourth.incidentId }
  const name = new Map(Object.entries(ids).map(([k, v]) => [v, k]))
  const names = async (filter: Omit<IncidentFilter, 'limit'>) =>
    (await store.incidents.list({ ...filter, limit: 10 })).incidents.map((i) => name.get(i.id))
  const pages: unknown[] = []
  let page = await store.incidents.list({ alertname: 'A', limit: 1 })
  pages.push(page.incidents.map((i) => name.get(i.id)))
  while (page.next) {
    page = await store.incidents.list({ alertname: 'A', limit: 1, after: page.next })
    pages.push(page.incidents.map((i) => name.get(i.id)))
  }
  const strip = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value, (key, v) => (['id', 'eventId', 'incidentId', 'messageId'].includes(key) ? '*' : v)),
    )
  return {
    filters: {
      branch: await names({ branch: 'TD-02' }),
      high: await names({ confidence: 'high' }),
      medium: await names({ confidence: 'medium' }),
      alertname: await names({ alertname: 'A' }),
      long1: await names({ instance: longInstance('1') }),
      long2: await names({ instance: longInstance('2') }),
      resolved: await names({ status: 'resolved', category: 'jvm_memory' }),
      window: await names({ since: day0 + 6.5 * 3_600_000 + 2000, until: day0 + 6.5 * 3_600_000 + 4000 }),
    },
    pages,
    confidenceShown: (await store.incidents.list({ branch: 'AH-01', limit: 1 })).incidents[0]?.diagnosis,
    // The incident page's timeline is the incidents API's (store/incident-timeline.ts).
    timeline: strip(await store.incidents.timeline(ids.second, { limit: 10 })),
    timelineBounded: strip(await store.incidents.timeline(ids.second, { limit: 1 })),
    mails: strip(await store.console.mails(ids.second, 1)),
    earlier: strip(await store.console.earlierOccurrences(ids.fourth, 5)),
    none: await store.console.earlierOccurrences(ids.first, 5),
    perDay: await store.console.incidentsPerDay(day0, day0 + 2 * dayMs),
    delays: await store.console.reportDelays(day0, day0 + 2 * dayMs),
    decisions: (await store.console.ruleDecisions(day0 + dayMs, day0)).sort((a, b) => a.branch.localeCompare(b.branch)),
  }
}

async function sessions(store: Opened) {
  const session = (idHash: string, idleUntil: number, expiresAt: number) => ({
    idHash,
    principal: 'viewer',
    scopes: ['read'],
    createdAt: 1000,
    idleUntil,
    expiresAt,
  })
  await store.console.createSession(session('live', 5000, 9000))
  await store.console.createSession(session('idle', 2000, 9000))
  await store.console.createSession(session('over', 8000, 3000))
  const found = await store.console.findSession('live', 3000)
  const ended = [await store.console.findSession('idle', 3000), await store.console.findSession('over', 3000)]
  await store.console.touchSession('live', 12_000)
  const touched = await store.console.findSession('live', 8500)
  const purged = await store.console.purgeSessions(3000)
  const deleted = [await store.console.deleteSession('live'), await store.console.deleteSession('live')]
  const [left] = await store.exec('SELECT count(*) AS n FROM console_sessions')
  return { found, ended, touched, purged, deleted, left: Number(left?.n) }
}

/** What `run` answers on a new SQLite store, then on a new PostgreSQL one. */
async function onBoth<T>(run: (store: Opened) => Promise<T>): Promise<T[]> {
  const answers: T[] = []
  for (const open of [sqlite, postgres]) {
    const store = await open()
    try {
      answers.push(await run(store))
    } finally {
      await store.close()
    }
  }
  return answers
}

describe('the console store on SQLite and PostgreSQL', () => {
  beforeAll(async () => {
    await server.start()
  }, 120_000)

  it('answers the same history the same way', async () => {
    const [onSqlite, onPostgres] = await onBoth(history)
    expect(onSqlite?.filters).toEqual({
      branch: ['fourth', 'first'],
      high: ['fourth', 'second'],
      medium: ['first'],
      alertname: ['fourth', 'third', 'first'],
      long1: ['second'],
      long2: ['third'],
      resolved: ['second'],
      window: ['third', 'second'],
    })
    expect(onSqlite?.pages).toEqual([['fourth'], ['third'], ['first']])
    expect(onSqlite?.confidenceShown).toMatchObject({ branch: 'AH-01', confidence: 'high' })
    const kinds = (timeline: { entries: Array<{ kind: string }> }) => timeline.entries.map((e) => e.kind)
    expect(kinds(onSqlite?.timeline).sort()).toEqual(
      [
        'received',
        'queued',
        'diagnosed',
        'mailed',
        'received',
        'queued',
        'recovery_prepared',
        'mailed',
        'ended',
      ].sort(),
    )
    expect(onSqlite?.timeline.entries[0]).toMatchObject({ kind: 'received', status: 'firing', principal: 'am' })
    // Queued with its report 100 ms after the receipt, sent 20 s after it.
    expect(onSqlite?.timeline.entries.find((e: { kind: string }) => e.kind === 'mailed')).toMatchObject({
      mail: 'diagnosis',
      status: 'sent',
      durationMs: 19_900,
    })
    expect(kinds(onSqlite?.timelineBounded)).toEqual(['received', 'queued', 'diagnosed', 'mailed'])
    expect(onSqlite?.timelineBounded.nextEvents).not.toBeNull()
    expect(onSqlite?.mails).toMatchObject({
      more: true,
      mails: [{ kind: 'diagnosis', status: 'sent', subject: 'diagnosis AH-01', text: 'the diagnosis report' }],
    })
    expect(onSqlite?.earlier).toMatchObject([{ status: 'superseded', branch: 'TD-02', confidence: 'medium' }])
    expect(onSqlite?.none).toEqual([])
    expect(onSqlite?.perDay).toEqual([
      { day: day0 / dayMs, branch: '', count: 1 },
      { day: day0 / dayMs, branch: 'AH-01', count: 1 },
      { day: day0 / dayMs, branch: 'TD-02', count: 1 },
      { day: day0 / dayMs + 1, branch: 'TD-02', count: 1 },
    ])
    // 2 s and 20 s after their receipt; the recovery mail and the unsent one are not counted.
    expect(onSqlite?.delays).toEqual([
      { bucket: 0, count: 1 },
      { bucket: 2, count: 1 },
    ])
    expect(onSqlite?.decisions).toEqual([
      { branch: 'AH-01', week: 0, month: 1 },
      { branch: 'TD-02', week: 1, month: 2 },
    ])
    expect(onPostgres).toEqual(onSqlite)
  })

  it('keeps sessions the same way', async () => {
    const [onSqlite, onPostgres] = await onBoth(sessions)
    expect(onSqlite).toEqual({
      found: {
        idHash: 'live',
        principal: 'viewer',
        scopes: ['read'],
        createdAt: 1000,
        idleUntil: 5000,
        expiresAt: 9000,
      },
      ended: [undefined, undefined],
      // The idle end moves, never past the absolute end.
      touched: expect.objectContaining({ idleUntil: 9000 }),
      purged: 2,
      deleted: [true, false],
      left: 0,
    })
    expect(onPostgres).toEqual(onSqlite)
  })

  // Keyset pages stay one index range whatever the page and the filter: each filter's
  // index gives the order (no sort step) and bounds the position (no scan from the top).
  // 2,000 incidents, each filter's value on one in a hundred, statistics taken.
  const planned: Array<[string, Omit<IncidentFilter, 'limit'>]> = [
    ['incidents_opened', {}],
    ['incidents_status_opened', { status: 'expired' }],
    ['incidents_branch_opened', { branch: 'GC-01' }],
    ['incidents_category_opened', { category: 'security_session' }],
    ['incidents_confidence_opened', { confidence: 'medium' }],
    ['incidents_instance_opened', { instance: 'rare-instance' }],
    ['incidents_alertname_opened', { alertname: 'Rare' }],
  ]
  const rare = (column: string, value: string) => `CASE WHEN i % 100 = 0 THEN '${value}' ELSE '${column}-common' END`
  const columns = `id, identity, fingerprint, starts_at, alertname, instance, severity, status, opened_at, branch, category, confidence`
  const values = (id: string) =>
    `${id}, 'identity-' || i, 'f', i, ${rare('alertname', 'Rare')}, ${rare('instance', 'rare-instance')}, 'critical',
     CASE WHEN i % 100 = 0 THEN 'expired' ELSE 'resolved' END, 1000000 + i, ${rare('branch', 'GC-01')},
     ${rare('category', 'security_session')}, ${rare('confidence', 'medium')}`
  const after = { after: { openedAt: 1_001_000, id: '00001000' } }

  it('reads each filter of the list from its own index, on SQLite', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-console-plan-')), 'p.db'))
    try {
      db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
        INSERT INTO incidents (${columns}) SELECT ${values("printf('%08d', i)")} FROM n`)
      db.exec('ANALYZE')
      for (const [index, filter] of planned) {
        for (const position of [{}, after]) {
          const { sql, params } = listQuery({ ...filter, ...position, limit: 50 })
          const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sqliteNamed(sql)}`).all(params) as Array<{ detail: string }>)
            .map((row) => row.detail)
            .join('; ')
          expect(plan, JSON.stringify(filter)).toMatch(new RegExp(`USING INDEX ${index}\\b`))
          expect(plan).not.toContain('TEMP B-TREE')
          if (position !== after) continue
          expect(plan, 'the position bounds the index range').toContain('(opened_at,id)<(?,?)')
        }
      }
    } finally {
      db.close()
    }
  })

  it('reads each filter of the list from its own index, on PostgreSQL', async () => {
    const db = await server.database()
    const client = await db.pool.connect()
    try {
      await client.query(`INSERT INTO incidents (${columns}) SELECT ${values("lpad(i::text, 8, '0')")}
        FROM generate_series(1, 2000) AS i`)
      await client.query('ANALYZE incidents')
      for (const [index, filter] of planned) {
        for (const position of [{}, after]) {
          const { sql, params } = listQuery({ ...filter, ...position, limit: 50 })
          const query = positional(sql, params)
          const rows = (await client.query(`EXPLAIN ${query.text}`, query.values)).rows as Array<Record<string, string>>
          const plan = rows.map((row) => Object.values(row)[0]).join('\n')
          expect(plan, JSON.stringify(filter)).toMatch(new RegExp(`Index Scan( Backward)? using ${index} on incidents`))
          expect(plan).not.toMatch(/Sort|Seq Scan/)
          if (position !== after) continue
          expect(plan, 'the position bounds the index range').toMatch(/Index Cond: .*ROW\(opened_at, id\) < ROW/)
        }
      }
    } finally {
      client.release()
      await db.close()
    }
  })

  // Incidents diagnosed before the confidence was recorded get it from their stored result.
  const migrationsBefore = (dir: string, last: string) => {
    const old = mkdtempSync(join(tmpdir(), 'diag-console-migrations-'))
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.sql') && n < last)) {
      copyFileSync(join(dir, name), join(old, name))
    }
    return old
  }
  const oldRows = [
    `INSERT INTO incidents (id, identity, fingerprint, starts_at, alertname, instance, severity, status, opened_at,
       firing_event_id, branch, rule_name, category, classification)
     VALUES ('i1', 'a', 'f', 1, 'A', 'app-01', 'critical', 'open', 1, 'e1', 'TD-02', 'JavaHeapExhausted', 'jvm_memory', 'probable_cause'),
            ('i2', 'b', 'f', 1, 'A', 'app-01', 'critical', 'open', 1, 'e2', NULL, NULL, NULL, NULL)`,
    `INSERT INTO events (id, identity, status, starts_at, alertname, instance, severity, alert, receiver, group_key,
       principal, received_at, incident_id)
     VALUES ('e1', 'a', 'firing', 't', 'A', 'app-01', 'critical', '{}', 'r', 'g', 'p', 1, 'i1'),
            ('e2', 'b', 'firing', 't', 'A', 'app-01', 'critical', '{}', 'r', 'g', 'p', 1, 'i2')`,
    `INSERT INTO results (event_id, incident_id, kind, result, created_at)
     VALUES ('e1', 'i1', 'diagnosis', '{"primary":{"branch":"TD-02","confidence":"medium"},"excerpts":["a\\u0000b"]}', 2)`,
  ]

  it('fills in the confidence of incidents diagnosed before, on SQLite and PostgreSQL', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'diag-console-migrate-')), 'm.db')
    const db = new Database(file)
    try {
      runMigrations(db, migrationsBefore(migrationsDir, '0011'))
      for (const sql of oldRows) db.exec(sql)
      runMigrations(db)
      expect(db.prepare('SELECT id, confidence FROM incidents ORDER BY id').all()).toEqual([
        { id: 'i1', confidence: 'medium' },
        { id: 'i2', confidence: null },
      ])
    } finally {
      db.close()
    }
    const url = await (await server.start()).createDatabase('console_migration')
    const pool = createPool(url, { timeoutMs: 10_000, max: 2 })
    try {
      await migratePostgres(pool, migrationsBefore(postgresMigrationsDir, '0005'))
      for (const sql of oldRows) await pool.query(sql)
      await migratePostgres(pool)
      expect((await pool.query('SELECT id, confidence FROM incidents ORDER BY id')).rows).toEqual([
        { id: 'i1', confidence: 'medium' },
        { id: 'i2', confidence: null },
      ])
    } finally {
      await pool.end()
    }
  })
})
