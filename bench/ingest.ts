// npm run bench:ingest: the webhook ingestion benchmark (docs/performance.md).
// Every figure is printed next to a baseline measured in the same run, because the
// machines are shared and noisy: only the ratios mean something. It never fails on speed.
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { packageRoot } from '../src/paths.js'
import {
  cpuSeconds,
  memorySplitLine,
  quietCollectionsNow,
  residentAfterRetirement,
  residentMiB,
  residentWhenQuiet,
  rssBesideTarget,
  scrapeMetric,
} from './process-stats.js'
import { startBareServer, startBenchService } from './service-process.js'
import { measureCommitFloor } from './sqlite-floor.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = 16
const token = 'bench-token-000000000001'
const path = '/api/v1/alerts/alertmanager'

function alertBody(benchId: string): string {
  return JSON.stringify({
    version: '4',
    receiver: 'diagnostic-service',
    status: 'firing',
    groupKey: '{}:{alertname="AppServerHealthCheckFailing"}',
    groupLabels: { alertname: 'AppServerHealthCheckFailing' },
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    truncatedAlerts: 0,
    alerts: [
      {
        status: 'firing',
        labels: {
          alertname: 'AppServerHealthCheckFailing',
          environment: 'prod',
          host: 'app-host-01',
          appserver_instance: 'app-01',
          check: 'health_ready',
          severity: 'critical',
          bench_id: benchId,
        },
        annotations: { summary: 'Tomcat app-01 health check failing for 5 minutes' },
        startsAt: '2026-11-22T04:55:00.000Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://prometheus:9090/graph?g0.expr=probe_success%3D%3D0',
      },
    ],
  })
}

interface PhaseResult {
  name: string
  reqPerSec: number
  accepted: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  /** CPU microseconds the server spent per answered request. */
  cpuPerRequest: number
  rss: { rss: number; peak: number }
}

async function load(
  name: string,
  url: string,
  pid: number | undefined,
  body: () => string,
  duration = seconds,
): Promise<PhaseResult> {
  const cpuBefore = cpuSeconds(pid)
  const result = await autocannon({
    url: `${url}${path}`,
    connections,
    duration,
    tlsOptions: { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' },
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: body() }),
      },
    ],
  })
  return {
    name,
    reqPerSec: result.requests.average,
    accepted: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuPerRequest: ((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, result.requests.total),
    rss: residentMiB(pid),
  }
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(9)

/** The slices of one phase as one result: rates averaged, latency percentiles at their worst. */
function combine(name: string, slices: PhaseResult[]): PhaseResult {
  const mean = (pick: (r: PhaseResult) => number) => slices.reduce((sum, r) => sum + pick(r), 0) / slices.length
  const last = slices[slices.length - 1] as PhaseResult
  return {
    name,
    reqPerSec: mean((r) => r.reqPerSec),
    accepted: mean((r) => r.accepted),
    p50: mean((r) => r.p50),
    p99: Math.max(...slices.map((r) => r.p99)),
    non2xx: slices.reduce((sum, r) => sum + r.non2xx, 0),
    errors: slices.reduce((sum, r) => sum + r.errors, 0),
    cpuPerRequest: mean((r) => r.cpuPerRequest),
    rss: last.rss,
  }
}

async function main() {
  mkdirSync(join(packageRoot, '.bench'), { recursive: true })
  const work = mkdtempSync(join(packageRoot, '.bench', 'ingest-'))
  const children: ChildProcess[] = []
  try {
    // BENCH_NODE_ARGS passes flags to the service and the bare server, e.g. --cpu-prof to
    // profile both. The service starts as `npm start` starts it (bin/diagnostic-service).
    const service = await startBenchService(
      token,
      {
        DIAG_DATA_DIR: join(work, 'data'),
        DIAG_WORKER: 'off', // the worker is paused: this measures ingestion alone
      },
      work,
    )
    children.push(service.child)
    const serviceUrl = service.url
    const tls = join(work, 'data', 'tls')
    const bare = await startBareServer(tls)
    children.push(bare.child)
    const bareUrl = bare.url

    const duplicate = alertBody('benchdup0001')
    let next = 0
    const distinct = () => alertBody(`bench${(next++).toString(16).padStart(12, '0')}`)

    process.stdout.write(`ingestion benchmark: ${connections} keep-alive connections, TLS 1.3, ${seconds} s a phase\n`)
    await load('warm-up', bareUrl, bare.child.pid, () => duplicate, 2)
    await load('warm-up', serviceUrl, service.child.pid, () => duplicate, 2)

    // The machine's speed swings within a minute, so the duplicate path and its baseline
    // run in alternating slices, and each ratio is taken between neighbouring slices.
    const sliceSeconds = Math.max(1, Math.round(seconds / 3))
    const bareSlices: PhaseResult[] = []
    const dupSlices: PhaseResult[] = []
    for (let round = 0; round < 3; round++) {
      bareSlices.push(await load('bare', bareUrl, bare.child.pid, () => duplicate, sliceSeconds))
      dupSlices.push(await load('duplicate', serviceUrl, service.child.pid, () => duplicate, sliceSeconds))
    }
    const baseline = combine('bare Fastify, 202 without storing', bareSlices)
    const dupPath = combine('service, duplicate path', dupSlices)
    const sliceRatios = (pick: (b: PhaseResult, d: PhaseResult) => number) =>
      bareSlices.map((b, i) => pick(b, dupSlices[i] as PhaseResult))
    const reqRatios = sliceRatios((b, d) => d.reqPerSec / b.reqPerSec)
    const cpuRatios = sliceRatios((b, d) => b.cpuPerRequest / d.cpuPerRequest)
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number
    const ratio = (n: number) => n.toFixed(2)
    const duplicateSummary = () => {
      process.stdout.write(
        `duplicate path / bare   req/s ${ratio(median(reqRatios))} (target >= 0.60; slices ${reqRatios.map(ratio).join(', ')})   p99 ${ratio(dupPath.p99 / baseline.p99)}x (target <= 2)\n`,
      )
      // Server CPU per request is steadier than req/s when the machine is shared.
      process.stdout.write(
        `CPU a request: bare ${baseline.cpuPerRequest.toFixed(0)} us, duplicate path ${dupPath.cpuPerRequest.toFixed(0)} us, bare / duplicate ${ratio(median(cpuRatios))} (slices ${cpuRatios.map(ratio).join(', ')})\n`,
      )
    }
    if (process.env.BENCH_ONLY === 'duplicate') {
      duplicateSummary()
      return
    }

    // The shared disk's fsync rate swings several-fold within a minute, so the distinct
    // phase runs in slices, each right after its own floor measurement.
    const floors: number[] = []
    const slices: PhaseResult[] = []
    const commitsBefore = await scrapeMetric(serviceUrl, 'diagnostic_ingest_commits_total')
    for (let round = 0; round < 3; round++) {
      floors.push(measureCommitFloor(work, 1.5))
      slices.push(await load('distinct', serviceUrl, service.child.pid, distinct, Math.max(1, Math.round(seconds / 3))))
    }
    const commits = (await scrapeMetric(serviceUrl, 'diagnostic_ingest_commits_total')) - commitsBefore
    const floor = floors.reduce((a, b) => a + b, 0) / floors.length
    const distinctPath = combine('service, distinct alerts (worker paused)', slices)
    const distinctSeconds = slices.length * Math.max(1, Math.round(seconds / 3))

    process.stdout.write(
      `\n${'phase'.padEnd(44)}${'req/s'.padStart(9)}${'2xx/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'non2xx'.padStart(9)}${'RSS MiB'.padStart(9)}${'peak'.padStart(9)}\n`,
    )
    for (const r of [baseline, dupPath, distinctPath]) {
      process.stdout.write(
        `${r.name.padEnd(44)}${fmt(r.reqPerSec)}${fmt(r.accepted)}${fmt(r.p50, 1)}${fmt(r.p99, 1)}${fmt(r.non2xx + r.errors)}${fmt(r.rss.rss)}${fmt(r.rss.peak)}\n`,
      )
    }
    process.stdout.write(
      `${'durable floor: single-row FULL commits/s'.padEnd(44)}${fmt(floor)}  (slices: ${floors.map((f) => f.toFixed(0)).join(', ')})\n`,
    )
    const accepted = distinctPath.accepted * distinctSeconds
    process.stdout.write(
      `${'service group commits/s'.padEnd(44)}${fmt(commits / distinctSeconds)}  (${(accepted / commits).toFixed(1)} alerts per commit)\n\n`,
    )
    duplicateSummary()
    process.stdout.write(
      `distinct alerts / floor alerts/s ${ratio(distinctPath.accepted / floor)} (target >= 1.00, needs group commit)\n`,
    )
    // Read before the service's quiet stretch can end (DIAG_ANALYSIS_QUIET_SECONDS after the last request).
    const quietBefore = await quietCollectionsNow(service.url)
    process.stdout.write(`service RSS after ingest ${rssBesideTarget(residentMiB(service.child.pid))}\n`)
    process.stdout.write(`  ${await memorySplitLine(service.url, service.child.pid)}\n`)
    const quiet = await residentWhenQuiet(service.url, service.child.pid, quietBefore)
    process.stdout.write(
      quiet
        ? `service RSS quiet after ingest ${rssBesideTarget(quiet)} (every isolate collected; signal after ${quiet.waitedSeconds.toFixed(1)} s more)\n`
        : 'service RSS quiet after ingest: no signal (DIAG_ANALYSIS_QUIET_SECONDS=0, or not within the period)\n',
    )
    if (quiet) process.stdout.write(`  ${await memorySplitLine(service.url, service.child.pid)}\n`)
    const retired = await residentAfterRetirement(service.url, service.child.pid)
    process.stdout.write(
      retired
        ? `service RSS, analysis threads retired ${rssBesideTarget(retired)} (signal after ${retired.waitedSeconds.toFixed(1)} s more)\n`
        : 'service RSS, analysis threads retired: no signal (DIAG_ANALYSIS_IDLE_SECONDS=0, or not within the period)\n',
    )
    if (retired) process.stdout.write(`  ${await memorySplitLine(service.url, service.child.pid)}\n`)
  } finally {
    for (const child of children) child.kill('SIGTERM')
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
