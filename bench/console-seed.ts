// The data bench:console measures on (docs/performance.md, "The console's reads"): 100,000
// incidents and the evidence bundles of the newest 1,000 diagnosed events, written into the
// store directly in bulk, on SQLite or PostgreSQL. The bundles are what the worker stores:
// logs built from the public corpus excerpts (test/corpus/) among ordinary lines, each file
// past 512 KiB so that its tail is cut to the service's bound, analysed by the service's own
// code (read, redacted, scanned, exceptions read) and encoded as the worker encodes them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type pg from 'pg'
import { type CollectedEvidence, collectEvidence } from '../src/evidence/collect.js'
import { loadInventory } from '../src/evidence/inventory.js'
import { packageRoot } from '../src/paths.js'
import { encodeBundle } from '../src/rules/bundle/bundle-bounds.js'
import type { EncodedBundle } from '../src/rules/bundle/evidence-bundle.js'
import type { Db } from '../src/store/sqlite/database.js'
import { InProcessAnalysis } from '../src/worker/analysis/in-process-analysis.js'

const statuses = ['resolved', 'resolved', 'resolved', 'resolved', 'superseded', 'expired', 'open'] as const
const branches = [
  ['TD-02', 'JavaHeapExhausted', 'jvm_memory'],
  ['TD-01', 'UpstreamConnectionRefused', 'network_integration'],
  ['TD-09', 'JdbcPoolExhausted', 'database_persistence'],
  ['TH-02', 'StuckRequestThreads', 'concurrency_threading'],
  ['TD-08', 'NoKnownSignature', 'general'],
] as const

const frames = Array.from(
  { length: 14 },
  (_, k) => `\\tat com.example.orders.pipeline.Stage${k}.process(Stage${k}.java:${100 + k})`,
).join('\\n')

/**
 * Line `i` of log `n`, an ordinary line of one of a few formats; every third log is JSON lines
 * that carry a handled exception's trace, about 1 KiB a line, so that its tail reaches
 * 512 KiB before its 500 lines (D15), where the others stop at 500 lines.
 */
const line = (n: number, i: number) =>
  [
    `{"@timestamp":"2026-11-22T04:${String(10 + (i % 50)).padStart(2, '0')}:00.${String(i % 1000).padStart(3, '0')}Z","level":"DEBUG","logger_name":"com.example.orders.pipeline.Retry","thread_name":"pool-3-thread-${i % 16}","message":"order ${100000 + i} retried after a transient failure","stack_trace":"com.example.orders.pipeline.TransientFailure: stage busy, retrying\\n${frames}"}`,
    `2026-11-22 04:${String(10 + (i % 50)).padStart(2, '0')}:00,${String(i % 1000).padStart(3, '0')} INFO  [http-nio-8080-exec-${i % 200}] com.example.orders.OrderService - processed order ${100000 + i} in ${i % 997} ms for customer ${(i * 7919) % 100000}`,
    `2026-11-22T04:${String(10 + (i % 50)).padStart(2, '0')}:00.${String(i % 1000).padStart(3, '0')}Z  INFO 1 --- [payments] [nio-8080-exec-${i % 64}] c.e.payments.ledger.LedgerClient : ledger call ${i} took ${i % 300} ms`,
    `####<Nov 22, 2026 4:${String(10 + (i % 50)).padStart(2, '0')}:00,${i % 1000} AM UTC> <Info> <Health> <app-host> <ManagedServer_1> <[ACTIVE] ExecuteThread: '${i % 40}'> <<WLS Kernel>> <> <> <${1795322400000 + i}> <BEA-310002> <${i % 90}% of the total memory in the server is free.>`,
  ][n % 3 === 0 ? 0 : 1 + (i % 3)] as string

/** `count` log files of about 600 KiB, each with two corpus excerpts and a secret among ordinary lines. */
export function writeLogs(dir: string, count: number): string {
  const corpus = readdirSync(join(packageRoot, 'test', 'corpus', 'excerpts')).flatMap((file) =>
    (
      JSON.parse(readFileSync(join(packageRoot, 'test', 'corpus', 'excerpts', file), 'utf8')) as Array<{ log: string }>
    ).map((excerpt) => excerpt.log),
  )
  mkdirSync(join(dir, 'logs'), { recursive: true })
  const instances: Record<string, { logs: string[] }> = {}
  for (let n = 0; n < count; n++) {
    const lines: string[] = []
    for (let i = 0, bytes = 0; bytes < 600 * 1024; i++) {
      const text = line(n, n * 10_000 + i)
      lines.push(text)
      bytes += text.length + 1
    }
    lines.splice(
      Math.floor(lines.length * 0.9),
      0,
      `db.password=bench-secret-${n}`,
      corpus[(2 * n) % corpus.length] as string,
    )
    lines.splice(Math.floor(lines.length * 0.97), 0, corpus[(2 * n + 1) % corpus.length] as string)
    writeFileSync(join(dir, 'logs', `app-${n}.log`), `${lines.join('\n')}\n`)
    instances[`app-${n}`] = { logs: [`logs/app-${n}.log`] }
  }
  writeFileSync(join(dir, 'inventory.json'), JSON.stringify({ instances }))
  return join(dir, 'inventory.json')
}

export interface Analysed {
  collected: CollectedEvidence
  bundle: EncodedBundle
}

/** Each instance's evidence as the worker collects it (logs only), and its bundle as the worker stores it. */
export async function analyse(inventoryFile: string, count: number): Promise<Analysed[]> {
  const inventory = loadInventory(inventoryFile)
  const analysis = new InProcessAnalysis([])
  const analysed: Analysed[] = []
  for (let n = 0; n < count; n++) {
    const alert = {
      alertname: 'BenchConsole',
      instance: `app-${n}`,
      severity: 'critical',
      startsAt: '2026-11-22T05:00:00Z',
    }
    const collected = await collectEvidence(alert, inventory, {
      httpTimeoutMs: 1000,
      analyzeLogs: (files, roots) => analysis.analyzeLogs(files, roots),
    })
    const { bounds: _, ...values } = collected.summary
    analysed.push({
      collected,
      bundle: await encodeBundle({ evidence: collected.evidence, excerpt: collected.excerpt, values }),
    })
  }
  return analysed
}

/** The rows of incident `i` of `total`: the newest last; opened over the 30 days before now. */
function incidentRow(i: number, total: number, now: number) {
  const [branch, ruleName, category] = branches[i % branches.length] as (typeof branches)[number]
  const status = statuses[i % statuses.length] as string
  const openedAt = now - Math.floor(((total - i) * 30 * 86_400_000) / total)
  return {
    id: `bench-incident-${String(i).padStart(6, '0')}`,
    identity: `bench-identity-${i}`,
    fingerprint: (i * 2654435761).toString(16).padStart(16, '0').slice(-16),
    startsAt: openedAt - 60_000,
    alertname: `BenchAlert${i % 20}`,
    instance: `app-${String(i % 200).padStart(3, '0')}`,
    severity: i % 5 === 0 ? 'warning' : 'critical',
    status,
    openedAt,
    endedAt: status === 'open' ? null : openedAt + 600_000,
    branch,
    ruleName,
    category,
    classification: branch === 'TD-08' ? 'undetermined' : 'probable_cause',
  }
}

const incidentColumns =
  'id, identity, fingerprint, starts_at, alertname, instance, severity, status, fired, firing_event_id, opened_at, ended_at, closed_at, branch, rule_name, category, classification, last_heard_at'
const eventColumns =
  'id, identity, status, starts_at, starts_ms, alertname, instance, severity, alert, receiver, group_key, principal, received_at, incident_id, transition'

const eventOf = (row: ReturnType<typeof incidentRow>) => [
  `bench-event-${row.id.slice(-6)}`,
  row.identity,
  'firing',
  new Date(row.startsAt).toISOString(),
  row.startsAt,
  row.alertname,
  row.instance,
  row.severity,
  JSON.stringify({ labels: { alertname: row.alertname, appserver_instance: row.instance } }),
  'diagnostic-service',
  'bench',
  'bench',
  row.openedAt,
  row.id,
  'opened',
]

const incidentValues = (row: ReturnType<typeof incidentRow>, diagnosed: boolean) => [
  row.id,
  row.identity,
  row.fingerprint,
  row.startsAt,
  row.alertname,
  row.instance,
  row.severity,
  row.status,
  1,
  diagnosed ? `bench-event-${row.id.slice(-6)}` : null,
  row.openedAt,
  row.endedAt,
  row.endedAt,
  row.branch,
  row.ruleName,
  row.category,
  row.classification,
  row.endedAt ?? row.openedAt,
]

const bundleValues = (row: ReturnType<typeof incidentRow>, bundle: EncodedBundle) => [
  `bench-event-${row.id.slice(-6)}`,
  row.id,
  row.openedAt + 5000,
  'br',
  1,
  bundle.rawBytes,
  bundle.truncated ? 1 : 0,
  bundle.bytes,
]
const bundleColumns = 'event_id, incident_id, created_at, encoding, format, raw_bytes, truncated, bundle'

const placeholders = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ')
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ')

/** `incidents` incidents, the newest `bundles` of them diagnosed with a stored bundle each (from `analysed`, in turn). */
export function seedSqlite(db: Db, incidents: number, bundles: number, analysed: readonly Analysed[]): void {
  const now = Date.now()
  const insertIncident = db.prepare(`INSERT INTO incidents (${incidentColumns}) VALUES (${marks(18)})`)
  const insertEvent = db.prepare(`INSERT INTO events (${eventColumns}) VALUES (${marks(15)})`)
  const insertBundle = db.prepare(`INSERT INTO evidence_bundles (${bundleColumns}) VALUES (${marks(8)})`)
  db.transaction(() => {
    for (let i = 0; i < incidents; i++) {
      const row = incidentRow(i, incidents, now)
      const diagnosed = i >= incidents - bundles
      insertIncident.run(...incidentValues(row, diagnosed))
      if (!diagnosed) continue
      insertEvent.run(...eventOf(row))
      insertBundle.run(...bundleValues(row, (analysed[i % analysed.length] as Analysed).bundle))
    }
  }).immediate()
}

/** The same rows on PostgreSQL, a few thousand a statement. */
export async function seedPostgres(pool: pg.Pool, incidents: number, bundles: number, analysed: readonly Analysed[]) {
  const now = Date.now()
  const insert = async (table: string, columns: string, rows: unknown[][]) => {
    const width = rows[0]?.length ?? 0
    const values = rows.map((_, r) => `(${placeholders(width, r * width + 1)})`).join(', ')
    await pool.query(`INSERT INTO ${table} (${columns}) VALUES ${values}`, rows.flat())
  }
  for (let from = 0; from < incidents; from += 2000) {
    const rows = Array.from({ length: Math.min(2000, incidents - from) }, (_, k) =>
      incidentRow(from + k, incidents, now),
    )
    await insert(
      'incidents',
      incidentColumns,
      rows.map((row, k) => incidentValues(row, from + k >= incidents - bundles)),
    )
  }
  for (let from = incidents - bundles; from < incidents; from += 50) {
    const rows = Array.from({ length: Math.min(50, incidents - from) }, (_, k) => incidentRow(from + k, incidents, now))
    await insert('events', eventColumns, rows.map(eventOf))
    await insert(
      'evidence_bundles',
      bundleColumns,
      rows.map((row, k) => bundleValues(row, (analysed[(from + k) % analysed.length] as Analysed).bundle)),
    )
  }
}
