// npm run bench:console: what the console asks of the server, with 100,000 incidents and the
// evidence bundles of the newest 1,000 diagnosed events in the store, on SQLite and on
// PostgreSQL (docs/performance.md, "The console's reads"). Each figure is the server's own
// time, printed beside baselines measured in the same run. Never fails on speed.
//
// A measurement is one entry of `measurements`: it gets the running service and the
// baselines, and returns its rows. Add the next one there.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeCursor } from '../src/http/routes/incidents.js'
import { loadBuiltinRules } from '../src/rules/builtin-loader.js'
import { encodeBundle } from '../src/rules/bundle/bundle-bounds.js'
import { DiagnosisEngine } from '../src/rules/diagnosis-engine.js'
import { offlineCustomRule, readRulepack } from '../src/rules/rule-input.js'
import { seedRulepackFile } from '../src/rules/seed.js'
import { migratePostgres } from '../src/store/postgres/migrate.js'
import { createPool } from '../src/store/postgres/pool.js'
import { openDatabase } from '../src/store/sqlite/database.js'
import { InProcessAnalysis } from '../src/worker/analysis/in-process-analysis.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { type Analysed, analyse, seedPostgres, seedSqlite, writeLogs } from './console-seed.js'
import { startBenchService } from './service-process.js'

const incidents = Number(process.env.BENCH_INCIDENTS ?? 100_000)
const bundles = Number(process.env.BENCH_BUNDLES ?? 1000)
const distinctLogs = Number(process.env.BENCH_DISTINCT_LOGS ?? 100)
const runs = Number(process.env.BENCH_RUNS ?? 3)
/** Requests per list page figure (each a console page and an API page). */
const listRuns = Number(process.env.BENCH_LIST_RUNS ?? 20)
const token = 'bench-console-token-0000001'

/** An answer: its JSON body when it is JSON, its text, its Set-Cookie headers. */
interface Answer {
  status: number
  body: any
  text: string
  cookies: string[]
  ms: number
}

/** The service a measurement calls, and what it holds. */
export interface Target {
  storage: 'sqlite' | 'postgres'
  /** With the bearer token, unless `headers` are given (a console session's cookies). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>
  /** Positions in the incidents list, newest first, as the list's cursors: `position` rows skipped, with a filter or none. */
  cursor(position: number, category?: string): string
}

/** Baselines measured once, in this process, on the same evidence. */
interface Baselines {
  /** The live engine alone (the catalogue of a fresh service) over the facts of `bundles` events, without explanations. */
  engineMs: number
  /** The same with the explanation each diagnosis now stores. */
  explainedMs: number
  /** The live path of one event (read, redact and scan its log, then the engine), times `bundles`. */
  liveMs: number
  /** Encoding the bundles of `bundles` events (brotli, libuv's thread pool), as the worker does. */
  encodeMs: number
}

type Row = { figure: string; ms: number; baseline: string; ratio: number | null }
type Measurement = (target: Target, baselines: Baselines) => Promise<Row[]>

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

/** A replay over the stored bundles: the server's time (`durationMs` of its answer), the median of `runs`. */
const replay: Measurement = async (target, baselines) => {
  const candidate = {
    branch: 'BENCH-01',
    ruleName: 'LedgerCallsSlow',
    category: 'network_integration',
    targetSource: 'local_file',
    pattern: '/ledger call [0-9]{1,8} took [0-9]{3} ms/',
    assessment: 'Calls to the ledger take hundreds of milliseconds.',
    classification: 'probable_cause',
    confidence: 'medium',
    recommendedActions: ['Look at the ledger.'],
  }
  const times: number[] = []
  let last: any
  for (let i = 0; i < runs; i++) {
    const answer = await target.call('POST', `/api/v1/rules/replay?last=${bundles}`, candidate)
    if (answer.status !== 200) throw new Error(`replay answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    times.push(answer.body.durationMs)
    last = answer.body
  }
  const ms = median(times)
  const figure = `replay over ${last.evaluated} bundles (${last.changed.length + last.omitted.changed} changed, ${last.matches} matched)`
  return [
    { figure, ms, baseline: `live engine alone (${baselines.engineMs.toFixed(0)} ms)`, ratio: ms / baselines.engineMs },
    {
      figure,
      ms,
      baseline: `live diagnosis x ${bundles} (${baselines.liveMs.toFixed(0)} ms)`,
      ratio: ms / baselines.liveMs,
    },
    {
      figure: `  its CPU per event: candidate ${last.cost.candidatesMicros.mean} us, catalogue ${last.cost.catalogueMicros.mean} us`,
      ms: ms / last.evaluated,
      baseline: 'ms per event',
      ratio: null,
    },
  ]
}

/**
 * The server's own time of `routes`' successful GETs: from the service's request duration
 * histogram (diagnostic_http_request_duration_seconds, Fastify's elapsed time of each
 * answer), its sum and count before and after `send`. The exposition is rendered at most
 * once a second, so it is read until it counts every request sent (`sent` each before,
 * `listRuns` more after). Milliseconds per request, per route.
 */
async function serverTimes(target: Target, routes: string[], sent: number, send: () => Promise<void>) {
  const counted = async (expected: number) => {
    for (let waited = 0; ; waited += 250) {
      const text = (await target.call('GET', '/metrics')).text
      const series = routes.map((route) => {
        // The series of the route's successful GETs, whatever the order of its labels.
        const labels = [`route="${route}"`, 'method="GET"', 'status_class="2xx"']
        const value = (name: string) => {
          const line = text
            .split('\n')
            .find(
              (l) =>
                l.startsWith(`diagnostic_http_request_duration_seconds_${name}{`) && labels.every((x) => l.includes(x)),
            )
          return Number(line?.slice(line.lastIndexOf(' ') + 1) ?? 0)
        }
        return { sum: value('sum'), count: value('count') }
      })
      if (series.every((s) => s.count === expected)) return series
      if (waited > 10_000) throw new Error(`the metrics counted ${series.map((s) => s.count)} of ${expected} requests`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  const before = await counted(sent)
  await send()
  const after = await counted(sent + listRuns)
  return after.map((a, i) => ((a.sum - (before[i]?.sum ?? 0)) / listRuns) * 1000)
}

/** A console session for the benchmark's token: the sign-in form posted, as a browser does. */
async function consoleCookies(target: Target): Promise<string> {
  const form = await target.call('GET', '/console/sign-in', undefined, {})
  const pair = (set: string) => set.split(';')[0] as string
  const csrfCookie = form.cookies.map(pair).join('; ')
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? ''
  const body = new URLSearchParams({ _csrf: csrf, token }).toString()
  const signedIn = await target.call('POST', '/console/sign-in', body, { cookie: csrfCookie })
  if (signedIn.status !== 303) throw new Error(`console sign-in answered ${signedIn.status}`)
  return [csrfCookie, ...signedIn.cookies.map(pair)].join('; ')
}

/**
 * The incidents list page (keyset pages, docs/design.md, "The web console"): the first page
 * and one deep in the list, without a filter and with one, beside the API's list of the
 * same page (GET /api/v1/incidents: the same read, as JSON), requests interleaved.
 */
const listPage: Measurement = async (target) => {
  const cookie = await consoleCookies(target)
  const deep = Math.floor(incidents / 2)
  const filteredDeep = Math.floor(incidents / 10)
  const pages: Array<[string, string]> = [
    ['first page, no filter', ''],
    [`page after ${deep.toLocaleString('en')}, no filter`, `cursor=${target.cursor(deep)}`],
    ['first page, category=jvm_memory', 'category=jvm_memory'],
    [
      `page after ${filteredDeep.toLocaleString('en')}, category=jvm_memory`,
      `category=jvm_memory&cursor=${target.cursor(filteredDeep, 'jvm_memory')}`,
    ],
  ]
  const rows: Row[] = []
  // Requests of each route so far, which the metrics must count before a figure is read.
  let sent = 0
  for (const [what, query] of pages) {
    const api = `/api/v1/incidents${query ? `?${query}` : ''}`
    const page = `/console/incidents${query ? `?${query.replace('cursor=', 'after=')}` : ''}`
    const one = async () => {
      const [html, json] = [await target.call('GET', page, undefined, { cookie }), await target.call('GET', api)]
      if (html.status !== 200 || json.status !== 200) throw new Error(`list answered ${html.status}, ${json.status}`)
      if (!html.text.includes('<table class="incidents">')) throw new Error('the list page has no table')
    }
    for (let i = 0; i < 3; i++) await one() // warm
    sent += 3
    const [pageMs, apiMs] = await serverTimes(target, ['/console/incidents', '/api/v1/incidents'], sent, async () => {
      for (let i = 0; i < listRuns; i++) await one()
    })
    sent += listRuns
    rows.push({
      figure: `list page: ${what}`,
      ms: pageMs as number,
      baseline: `API list, same page (${(apiMs as number).toFixed(1)} ms)`,
      ratio: (pageMs as number) / (apiMs as number),
    })
  }
  return rows
}

/** Add the console's next measurement here. */
const measurements: Measurement[] = [listPage, replay]

async function baselinesOf(analysed: readonly Analysed[], inventoryDir: string): Promise<Baselines> {
  const { rules, versions } = loadBuiltinRules()
  const seed = readRulepack(seedRulepackFile).map((body, i) => offlineCustomRule(body, i + 1, 'seed', ''))
  const engine = new DiagnosisEngine(rules, versions, seed)
  const evidence = (i: number) => (analysed[i % analysed.length] as Analysed).collected.evidence
  await engine.diagnose(evidence(0)) // warm
  // Each event both ways, one after the other, so that neither order nor the JIT favours one.
  let engineMs = 0
  let explainedMs = 0
  for (let i = 0; i < bundles; i++) {
    let began = performance.now()
    await engine.diagnose(evidence(i), { explain: false })
    engineMs += performance.now() - began
    began = performance.now()
    await engine.diagnose(evidence(i))
    explainedMs += performance.now() - began
  }
  let started = performance.now()
  for (const { collected } of analysed) {
    const { bounds: _, ...values } = collected.summary
    await encodeBundle({ evidence: collected.evidence, excerpt: collected.excerpt, values })
  }
  const encodeMs = ((performance.now() - started) / analysed.length) * bundles
  const analysis = new InProcessAnalysis(seed)
  started = performance.now()
  for (let n = 0; n < analysed.length; n++) {
    const logs = await analysis.analyzeLogs([join(inventoryDir, 'logs', `app-${n}.log`)], [inventoryDir])
    await analysis.diagnose({
      ...(analysed[n] as Analysed).collected.evidence,
      log: { matches: logs.matches, exceptions: logs.exceptions },
    })
  }
  const liveMs = ((performance.now() - started) / analysed.length) * bundles
  return { engineMs, explainedMs, liveMs, encodeMs }
}

function client(url: string, ca: Buffer): Target['call'] {
  const agent = new Agent({ keepAlive: true, ca })
  return (method, path, body, headers) => {
    const started = performance.now()
    const form = typeof body === 'string'
    return new Promise((resolve, reject) => {
      const req = request(
        `${url}${path}`,
        {
          method,
          agent,
          headers: {
            ...(headers ? {} : { authorization: `Bearer ${token}` }),
            ...(body === undefined
              ? {}
              : { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString()
            resolve({
              status: res.statusCode ?? 0,
              body: res.headers['content-type']?.startsWith('application/json') && text ? JSON.parse(text) : null,
              text,
              cookies: res.headers['set-cookie'] ?? [],
              ms: performance.now() - started,
            })
          })
        },
      )
      req.on('error', reject)
      req.end(body === undefined ? undefined : form ? body : JSON.stringify(body))
    })
  }
}

/** The newest-first positions of the list as cursors, read from the store before the service starts. */
async function cursorsOf(
  read: (sql: string, params: unknown[]) => Promise<Array<{ opened_at: unknown; id: unknown }>>,
  wanted: Array<[number, string | undefined]>,
): Promise<Target['cursor']> {
  const cursors = new Map<string, string>()
  for (const [position, category] of wanted) {
    const where = category ? 'WHERE category = $1' : ''
    const [row] = await read(
      `SELECT opened_at, id FROM incidents ${where} ORDER BY opened_at DESC, id DESC LIMIT 1 OFFSET ${position - 1}`,
      category ? [category] : [],
    )
    if (!row) throw new Error(`no incident at position ${position}`)
    cursors.set(`${position}:${category ?? ''}`, encodeCursor(Number(row.opened_at), String(row.id)))
  }
  return (position, category) => {
    const cursor = cursors.get(`${position}:${category ?? ''}`)
    if (!cursor) throw new Error(`no cursor read for position ${position}`)
    return cursor
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-console-'))
  const postgres = await startPostgres()
  try {
    const inventory = writeLogs(scratch, distinctLogs)
    const analysed = await analyse(inventory, distinctLogs)
    const baselines = await baselinesOf(analysed, scratch)
    const stored = analysed.reduce((sum, a) => sum + a.bundle.bytes.length, 0) / analysed.length
    const raw = analysed.reduce((sum, a) => sum + a.bundle.rawBytes, 0) / analysed.length
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
    console.log(
      `bench:console (${incidents} incidents, ${bundles} bundles from ${distinctLogs} logs, bundles ${(raw / 1024).toFixed(0)} KiB -> ${(stored / 1024).toFixed(0)} KiB brotli; ${load} load)`,
    )
    console.log(`${'storage'.padEnd(9)}${'figure'.padEnd(64)}${'ms'.padStart(9)}   ${'baseline'.padEnd(36)}ratio`)
    // What each diagnosis now adds to the worker, per event.
    const live = baselines.liveMs / bundles
    const perEvent = [
      ['the evidence bundle, encoded (libuv pool)', baselines.encodeMs / bundles],
      ['the explanation, built by the engine', (baselines.explainedMs - baselines.engineMs) / bundles],
    ] as const
    for (const [figure, ms] of perEvent) {
      console.log(
        `${'worker'.padEnd(9)}${figure.padEnd(64)}${ms.toFixed(2).padStart(9)}   ${`live diagnosis of one (${live.toFixed(2)} ms)`.padEnd(36)}${(ms / live).toFixed(2)}`,
      )
    }
    for (const storage of ['sqlite', 'postgres'] as const) {
      const dir = mkdtempSync(join(scratch, `${storage}-`))
      let env: Record<string, string> = { DIAG_WORKER: 'off', DIAG_ANONYMOUS_RATE_LIMIT_PER_MINUTE: '0' }
      const wanted: Array<[number, string | undefined]> = [
        [Math.floor(incidents / 2), undefined],
        [Math.floor(incidents / 10), 'jvm_memory'],
      ]
      let cursor: Target['cursor']
      if (storage === 'sqlite') {
        const db = openDatabase(join(dir, 'data', 'diagnostic.db'))
        seedSqlite(db, incidents, bundles, analysed)
        cursor = await cursorsOf(
          async (sql, params) => db.prepare(sql.replace('$1', '?')).all(...params) as any,
          wanted,
        )
        db.close()
        env = { ...env, DIAG_DATA_DIR: join(dir, 'data') }
      } else {
        const url = await postgres.createDatabase('console')
        const pool = createPool(url, { timeoutMs: 60_000, max: 2 })
        await migratePostgres(pool)
        await seedPostgres(pool, incidents, bundles, analysed)
        cursor = await cursorsOf(async (sql, params) => (await pool.query(sql, params)).rows, wanted)
        await pool.end()
        env = { ...env, DIAG_DATABASE_URL: url }
      }
      const service = await startBenchService(token, env, dir)
      try {
        const target: Target = {
          storage,
          call: client(service.url, readFileSync(join(dir, 'data', 'tls', 'ca.pem'))),
          cursor,
        }
        for (const measure of measurements) {
          for (const row of await measure(target, baselines)) {
            const ratio = row.ratio === null ? '' : row.ratio.toFixed(2)
            console.log(
              `${storage.padEnd(9)}${row.figure.padEnd(64)}${row.ms.toFixed(1).padStart(9)}   ${row.baseline.padEnd(36)}${ratio}`,
            )
          }
        }
      } finally {
        service.child.kill('SIGKILL')
      }
    }
  } finally {
    postgres.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
