// npm run bench:ha: the service on PostgreSQL beside the SQLite default, in one run
// (docs/performance.md, "Replicas on PostgreSQL"). Every figure is printed next to a
// baseline measured in the same run: PostgreSQL's own single-row commit floor, the same
// webhook load on SQLite, one replica beside three. It never fails on speed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { SMTPServer } from 'smtp-server'
import { startPostgres } from '../test/helpers/postgres.js'
import { cpuSeconds } from './process-stats.js'
import { startBareServer, startBenchService } from './service-process.js'
import { measureCommitFloor } from './sqlite-floor.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const senders = 8
const stormAlerts = Number(process.env.BENCH_ALERTS ?? 300)
/** Alerts each replica diagnoses before a storm is timed (drain). */
const warmUp = 10
const token = 'bench-ha-token-000000001'
const agent = new Agent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: false })

function body(id: string, instance = 'app-01'): string {
  return JSON.stringify({
    version: '4',
    receiver: 'diagnostic-service',
    status: 'firing',
    groupKey: `{}:{alertname="BenchHa",id="${id}"}`,
    alerts: [
      {
        status: 'firing',
        labels: {
          alertname: 'BenchHa',
          environment: 'prod',
          host: 'host-01',
          appserver_instance: instance,
          check: 'health',
          severity: 'critical',
          bench_id: id,
        },
        annotations: { summary: 'bench' },
        startsAt: '2026-11-24T05:00:00Z',
      },
    ],
  })
}

function post(url: string, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/alerts/alertmanager`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

const startService = (env: Record<string, string>) =>
  startBenchService(token, env, mkdtempSync(join(tmpdir(), 'bench-ha-')))

/**
 * The HTTPS stack's own ceiling on this machine: a bare Fastify server on TLS 1.3 with the
 * service's certificate, storing nothing (bench/bare-server.ts), under the same senders.
 */
async function bareHttps(tlsDir: string): Promise<number> {
  const bare = await startBareServer(tlsDir)
  try {
    let n = 0
    return await load(bare.url, () => body(`bare-${n++}`))
  } finally {
    bare.child.kill('SIGKILL')
  }
}

/** Requests answered 202 per second, `senders` at a time, for `seconds`; `next` makes each body. */
async function load(url: string, next: () => string): Promise<number> {
  const deadline = performance.now() + seconds * 1000
  let accepted = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (performance.now() < deadline) if ((await post(url, next())) === 202) accepted++
    }),
  )
  return accepted / ((performance.now() - started) / 1000)
}

/** Single-row commits per second on one connection: PostgreSQL's durable floor here. */
async function postgresCommitFloor(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('CREATE TABLE floor (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)')
    const payload = 'x'.repeat(1024)
    const deadline = performance.now() + seconds * 1000
    const started = performance.now()
    let commits = 0
    while (performance.now() < deadline) {
      await client.query('INSERT INTO floor (payload) VALUES ($1)', [payload])
      commits++
    }
    return commits / ((performance.now() - started) / 1000)
  } finally {
    await client.end()
  }
}

/** A local SMTP server that counts what it receives. */
async function countingSmtp(): Promise<{ url: string; received: () => number; close: () => void }> {
  let received = 0
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume()
      stream.on('end', () => {
        received++
        callback()
      })
    },
  })
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return { url: `smtp://127.0.0.1:${port}`, received: () => received, close: () => server.close() }
}

interface Drain {
  eventsPerSecond: number
  /** The services' CPU milliseconds per event, all replicas and threads together. */
  cpuMsPerEvent: number
  /** Of the samples taken every 20 ms during the storm, the share that saw a session waiting for a lock. */
  lockWaitShare: number
}

/**
 * A storm from the first webhook to its last report at the SMTP server, with `replicas`
 * replicas of `threads` analysis threads each; a sampler watches pg_locks for waiting sessions
 * (replicas that fight over locks would show there).
 */
async function drain(databaseUrl: string, replicas: number, threads: number, run: string): Promise<Drain> {
  const smtp = await countingSmtp()
  const services = await Promise.all(
    Array.from({ length: replicas }, () =>
      startService({ DIAG_DATABASE_URL: databaseUrl, DIAG_SMTP_URL: smtp.url, DIAG_ANALYSIS_THREADS: String(threads) }),
    ),
  )
  const watcher = new pg.Client({ connectionString: databaseUrl })
  await watcher.connect()
  try {
    // Each replica first diagnoses and mails a few alerts of its own, untimed: the storm then
    // measures replicas at work, not each process compiling its code and templates once.
    await Promise.all(
      services.map(async (service, r) => {
        for (let i = 0; i < warmUp; i++) while ((await post(service.url, body(`${run}-warm-${r}-${i}`))) !== 202) {}
      }),
    )
    const warmed = replicas * warmUp
    while (smtp.received() < warmed) await new Promise((resolve) => setTimeout(resolve, 20))
    const cpuBefore = services.map((service) => cpuSeconds(service.child.pid))
    let samples = 0
    let waiting = 0
    let storming = true
    const sampler = (async () => {
      while (storming) {
        const { rows } = await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted')
        samples++
        if ((rows[0]?.n ?? 0) > 0) waiting++
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })()
    const started = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (next < stormAlerts) {
          const i = next++
          const service = services[i % replicas] as { url: string }
          while ((await post(service.url, body(`${run}-${i}`, `app-0${1 + (i % 4)}`))) !== 202) {}
        }
      }),
    )
    while (smtp.received() < warmed + stormAlerts) await new Promise((resolve) => setTimeout(resolve, 20))
    const seconds = (performance.now() - started) / 1000
    storming = false
    await sampler
    const cpu = services.reduce((sum, service, i) => sum + cpuSeconds(service.child.pid) - (cpuBefore[i] ?? 0), 0)
    return {
      eventsPerSecond: stormAlerts / seconds,
      cpuMsPerEvent: (1000 * cpu) / stormAlerts,
      lockWaitShare: samples > 0 ? waiting / samples : 0,
    }
  } finally {
    await watcher.end()
    for (const service of services) service.child.kill('SIGKILL')
    smtp.close()
  }
}

async function main(): Promise<void> {
  const postgres = await startPostgres()
  const scratch = mkdtempSync(join(tmpdir(), 'bench-ha-floor-'))
  try {
    const floorUrl = await postgres.createDatabase('floor')
    const pgFloor = await postgresCommitFloor(floorUrl)
    const sqliteFloor = measureCommitFloor(scratch, seconds)
    const ingestUrl = await postgres.createDatabase('ingest')
    const results: Record<string, { distinct: number; duplicate: number }> = {}
    let bare = 0
    for (const [kind, env] of [
      ['sqlite', {}],
      ['postgres', { DIAG_DATABASE_URL: ingestUrl }],
    ] as const) {
      const service = await startService({ ...env, DIAG_WORKER: 'off' })
      try {
        let n = 0
        const distinct = await load(service.url, () => body(`${kind}-${n++}`))
        const repeated = body(`${kind}-repeat`)
        await post(service.url, repeated)
        const duplicate = await load(service.url, () => repeated)
        results[kind] = { distinct, duplicate }
        if (kind === 'sqlite') bare = await bareHttps(join(service.dir, 'data', 'tls'))
      } finally {
        service.child.kill('SIGKILL')
        rmSync(service.dir, { recursive: true, force: true })
      }
    }
    const one = await drain(await postgres.createDatabase('drain1'), 1, 1, 'one')
    const three = await drain(await postgres.createDatabase('drain3'), 3, 1, 'three')
    // The control: as many analysis threads as the three replicas have, in one process.
    const oneOfThree = await drain(await postgres.createDatabase('drain1x3'), 1, 3, 'control')
    const sqlite = results.sqlite as { distinct: number; duplicate: number }
    const onPg = results.postgres as { distinct: number; duplicate: number }
    const row = (name: string, value: number, baseline: string, ratio: number) =>
      console.log(`${name.padEnd(44)} ${value.toFixed(1).padStart(9)}   ${baseline.padEnd(34)} ${ratio.toFixed(2)}`)
    console.log(
      `bench:ha (${seconds} s a phase, ${senders} senders, a storm of ${stormAlerts}; ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} load)`,
    )
    console.log(`${'figure'.padEnd(44)} ${'per s'.padStart(9)}   ${'baseline'.padEnd(34)} ratio`)
    row('PostgreSQL single-row commit floor', pgFloor, `SQLite's (${sqliteFloor.toFixed(0)}/s)`, pgFloor / sqliteFloor)
    row('bare HTTPS, nothing stored (req/s)', bare, `PostgreSQL's commit floor`, bare / pgFloor)
    row('distinct alerts on PostgreSQL', onPg.distinct, `PostgreSQL's commit floor`, onPg.distinct / pgFloor)
    row('distinct alerts on PostgreSQL', onPg.distinct, `bare HTTPS (${bare.toFixed(0)}/s)`, onPg.distinct / bare)
    row(
      'distinct alerts on PostgreSQL',
      onPg.distinct,
      `SQLite (${sqlite.distinct.toFixed(0)}/s)`,
      onPg.distinct / sqlite.distinct,
    )
    row(
      'duplicate path on PostgreSQL',
      onPg.duplicate,
      `SQLite (${sqlite.duplicate.toFixed(0)}/s)`,
      onPg.duplicate / sqlite.duplicate,
    )
    const storm = (name: string, d: Drain) =>
      console.log(
        `${name.padEnd(44)} ${d.eventsPerSecond.toFixed(1).padStart(9)}   CPU ${d.cpuMsPerEvent.toFixed(2)} ms/event, lock waits in ${(100 * d.lockWaitShare).toFixed(0)}% of samples`,
      )
    storm('storm drain, 1 replica, 1 analysis thread', one)
    storm('storm drain, 3 replicas, 1 thread each', three)
    storm('storm drain, 1 replica, 3 analysis threads', oneOfThree)
    row(
      'storm drain, 3 replicas (events/s)',
      three.eventsPerSecond,
      '1 replica',
      three.eventsPerSecond / one.eventsPerSecond,
    )
    row(
      'storm drain, 3 replicas (events/s)',
      three.eventsPerSecond,
      '1 replica of 3 threads (control)',
      three.eventsPerSecond / oneOfThree.eventsPerSecond,
    )
    row('CPU per event, 3 replicas (ms)', three.cpuMsPerEvent, '1 replica', three.cpuMsPerEvent / one.cpuMsPerEvent)
    row(
      'CPU per event, 1 replica of 3 threads (ms)',
      oneOfThree.cpuMsPerEvent,
      '1 replica',
      oneOfThree.cpuMsPerEvent / one.cpuMsPerEvent,
    )
  } finally {
    postgres.close()
    rmSync(scratch, { recursive: true, force: true })
    agent.destroy()
  }
}

await main()
