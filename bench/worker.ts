// npm run bench:worker: a storm of 500 distinct alerts, each for an instance with more than
// 512 KiB of log, sent the way Alertmanager does (concurrent webhooks, a 503 retried on its
// randomized exponential backoff, which ignores Retry-After), measured until the last report
// reaches a local SMTP server. Prints events/s end to end and the service's own drain while
// it had work, alert-to-mail latency p50/p99 and the service's RSS. Then as many alerts
// again, offered at a fixed rate (BENCH_PACED_RATE, 220 events/s) whatever the answers, as a
// storm arrives: the drain from first report to last. Never fails on speed.
import { type ChildProcess, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import { readLogTail } from '../src/evidence/log-tail.js'
import { packageRoot, pathWithThisNode, startScript } from '../src/paths.js'
import { lastLinesFolded } from '../src/text/frame-folding.js'
import { InProcessAnalysis } from '../src/worker/analysis/in-process-analysis.js'
import { analysisStages } from './analysis-stages.js'
import { memoryLines, probedThreads } from './memory-breakdown.js'
import {
  cpuSeconds,
  memorySplitLine,
  quietCollectionsNow,
  residentAfterRetirement,
  residentMiB,
  residentWhenQuiet,
  rssBesideTarget,
  sample,
  scrape,
} from './process-stats.js'
import { profileStages, stageLines, threadCpu, threadCpuLines } from './profile-stages.js'

const alerts = Number(process.env.BENCH_ALERTS ?? 500)
// A long-running service is warm: the first alerts after a start also pay for the JIT
// compiling the hot paths (seconds of CPU on this machine), so they are sent first and
// reported apart.
const warmup = Number(process.env.BENCH_WARMUP ?? 100)
/** Alerts sent after the analysis threads were retired, idle: the cost of starting them again. */
const restartAlerts = 20
const instances = 20
const senders = 16
const token = 'bench-worker-token-00001'
// BENCH_PROFILE=1: the service runs with --cpu-prof and a memory probe in every thread, and the
// benchmark prints where each event's time and the RSS went (docs/performance.md).
const profiling = process.env.BENCH_PROFILE === '1'
/** The monotonic clock in microseconds, as V8's CPU profiles count time. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

function writeWorkspace(dir: string): string {
  mkdirSync(join(dir, 'logs'))
  const line = (i: number) =>
    `2026-11-22 04:5${i % 10}:00,${String(i % 1000).padStart(3, '0')} INFO  [http-nio-8080-exec-${i % 200}] com.example.orders.OrderService - processed order ${100000 + i} ${'payload '.repeat(130)}`
  const instanceNames: string[] = []
  const inventory: Record<string, { logs: string[] }> = {}
  for (let n = 0; n < instances; n++) {
    const name = `bench-${String(n).padStart(2, '0')}`
    const lines = Array.from({ length: 700 }, (_, i) => line(i))
    lines.splice(
      650,
      0,
      'java.lang.OutOfMemoryError: Java heap space',
      '\tat com.example.orders.Export.render(Export.java:212)',
    )
    writeFileSync(join(dir, 'logs', `${name}.log`), `${lines.join('\n')}\n`)
    inventory[name] = { logs: [`logs/${name}.log`] }
    instanceNames.push(name)
  }
  writeFileSync(join(dir, 'inventory.json'), JSON.stringify({ instances: inventory }))
  return join(dir, 'inventory.json')
}

// Alertmanager's Go HTTP client keeps its connections alive; so does the benchmark.
const agent = new Agent({ keepAlive: true, maxSockets: senders, rejectUnauthorized: false })
/**
 * The paced storm's connections: as many as its webhooks in flight, as Alertmanager's client
 * opens (one notification per aggregation group, each on its own, no limit per host).
 */
const pacedAgent = new Agent({ keepAlive: true, rejectUnauthorized: false })
/**
 * The rate the paced storm offers: above issue 31's 200 events/s, so that a service that keeps
 * up shows its drain above the target and one that does not shows its own rate.
 */
const pacedRate = Number(process.env.BENCH_PACED_RATE ?? 220)

const fingerprint = (i: number) => `bench${i.toString(16).padStart(8, '0')}`

function webhookBody(i: number): string {
  const instance = `bench-${String(i % instances).padStart(2, '0')}`
  return JSON.stringify({
    version: '4',
    receiver: 'diagnostic-service',
    status: 'firing',
    groupKey: `{}:{alertname="AppServerHealthCheckFailing",instance="${instance}"}`,
    alerts: [
      {
        status: 'firing',
        labels: {
          alertname: 'AppServerHealthCheckFailing',
          environment: 'bench',
          host: 'bench-host',
          appserver_instance: instance,
          check: 'health',
          severity: 'critical',
          bench_id: fingerprint(i),
        },
        annotations: { summary: 'bench' },
        startsAt: new Date(Date.UTC(2026, 10, 22, 5, 0, 0) + i * 1000).toISOString(),
      },
    ],
  })
}

function post(url: string, body: string, through = agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/alerts/alertmanager`,
      {
        method: 'POST',
        agent: through,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * Alertmanager's retry of one notification, which does not read Retry-After: RetryStage.exec
 * in https://github.com/prometheus/alertmanager/blob/main/notify/notify.go ticks a
 * backoff.NewTicker over backoff.NewExponentialBackOff() of github.com/cenkalti/backoff/v4
 * with MaxElapsedTime = 0 (always retry), that is the library's defaults: InitialInterval
 * 500 ms, RandomizationFactor 0.5 (each wait uniform in [0.5x, 1.5x] of the interval),
 * Multiplier 1.5, MaxInterval 60 s. The ticker's next tick is timed from the previous one,
 * so the time an attempt took counts in its wait. One instance per notification.
 */
function alertmanagerBackoff(): () => number {
  let interval = 500
  return () => {
    const wait = interval * (0.5 + Math.random())
    interval = Math.min(interval * 1.5, 60_000)
    return wait
  }
}

/** The most alerts sent and not yet mailed at any one time. */
function heldAtOnce(spans: ReadonlyArray<readonly [number, number]>): number {
  const steps = spans.flatMap(([sent, reported]) => [
    { at: sent, delta: 1 },
    { at: reported, delta: -1 },
  ])
  steps.sort((a, b) => a.at - b.at || a.delta - b.delta)
  let held = 0
  let most = 0
  for (const { delta } of steps) {
    held += delta
    most = Math.max(most, held)
  }
  return most
}

/**
 * Milliseconds during which the service held work: at least one event acknowledged (its
 * 202 received) and not yet reported (its mail received).
 */
function busyMs(accepted: number[], reported: number[]): number {
  const steps = [...accepted.map((at) => ({ at, delta: 1 })), ...reported.map((at) => ({ at, delta: -1 }))]
  steps.sort((a, b) => a.at - b.at || b.delta - a.delta)
  let held = 0
  let busy = 0
  let since = 0
  for (const { at, delta } of steps) {
    if (held > 0) busy += at - since
    held += delta
    since = at
  }
  return busy
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

/**
 * CPU milliseconds of one calibration unit, a fixed mix of what the service does (hashing,
 * JSON, a regular expression over log text), measured in this process while the service
 * is idle: how fast the machine is at that moment, whatever the service's code does.
 */
function calibrate(): number {
  const log = Buffer.from('2026-11-22 05:00:00,000 INFO  [exec-1] com.example.Service - processed order\n'.repeat(8192))
  const text = log.toString('utf8')
  const document = Array.from({ length: 2000 }, (_, i) => ({
    id: i,
    labels: { instance: `app-${i}`, severity: 'warning' },
  }))
  const work = () => {
    createHash('sha256').update(log).digest()
    JSON.parse(JSON.stringify(document))
    return /OutOfMemoryError|deadlock detected/.test(text)
  }
  for (let i = 0; i < 5; i++) work()
  const start = process.cpuUsage()
  let units = 0
  let used = 0
  while (used < 200_000) {
    work()
    units++
    const cpu = process.cpuUsage(start)
    used = cpu.user + cpu.system
  }
  return used / 1000 / units
}

/**
 * CPU milliseconds per call of `work`, over at least 200 ms of CPU time, the clock read once
 * per batch of calls (reading it costs more than a short call).
 */
function cpuMsPerCall(work: () => unknown): number {
  const used = (start: NodeJS.CpuUsage) => {
    const cpu = process.cpuUsage(start)
    return cpu.user + cpu.system
  }
  // Batches double until one takes 10 ms (this also warms the code up).
  let batch = 1
  for (;;) {
    const start = process.cpuUsage()
    for (let i = 0; i < batch; i++) work()
    if (used(start) >= 10_000) break
    batch *= 2
  }
  const start = process.cpuUsage()
  let calls = 0
  while (used(start) < 200_000) {
    for (let i = 0; i < batch; i++) work()
    calls += batch
  }
  return used(start) / 1000 / calls
}

/** The 500-line cut without folding, as the tail read did before it: the baseline of the fold. */
function cutOnly(buffer: Buffer, maxLines: number): number {
  let from = buffer.length
  for (let lines = 0; lines < maxLines && from > 0; lines++) from = buffer.lastIndexOf(10, from - 2) + 1
  return from
}

/**
 * What folding repeated frames costs (docs/design.md, "Deep traces are folded"), CPU-bound in
 * this process while the service is idle: fold and cut of a 512 KiB window against the cut
 * alone, and against the whole analysis of the file (read, fold, redaction, the built-in
 * catalogue's scan), for an instance's log of the storm and for the same log ending in a
 * StackOverflowError's 1,024 frames (a cycle of three). Folding rewrites its buffer, so each
 * call of either first copies the window into the same scratch buffer (as a read would).
 */
async function foldingCost(dir: string): Promise<{ lines: string[]; analysisMs: number }> {
  const ordinary = join(dir, 'logs', 'bench-00.log')
  const deep = join(dir, 'logs', 'bench-overflow.log')
  const methods = ['visit', 'expand', 'resolve']
  const frames = Array.from(
    { length: 1024 },
    (_, i) => `\t\tat com.example.Tree.${methods[i % 3]}(Tree.java:${40 + (i % 3)})`,
  )
  writeFileSync(deep, `${readFileSync(ordinary, 'utf8')}java.lang.StackOverflowError\n${frames.join('\n')}\n`)
  const analysis = new InProcessAnalysis([])
  const lines: string[] = []
  let analysisMs = Number.NaN
  // One after the other (process.cpuUsage counts the whole process), the least disturbed of three rounds.
  for (const [name, file] of [
    ['ordinary log', ordinary],
    ['deep trace', deep],
  ] as const) {
    const bytes = readFileSync(file)
    const window = bytes.subarray(bytes.indexOf(10, bytes.length - 512 * 1024) + 1, bytes.length - 1)
    const scratch = Buffer.allocUnsafe(window.length)
    let [fold, cut, whole] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]
    for (let round = 0; round < 3; round++) {
      fold = Math.min(
        fold,
        cpuMsPerCall(() => {
          window.copy(scratch)
          return lastLinesFolded(scratch, 0, scratch.length, 500)
        }),
      )
      cut = Math.min(
        cut,
        cpuMsPerCall(() => {
          window.copy(scratch)
          return cutOnly(scratch, 500)
        }),
      )
      // The analysis is asynchronous in form only.
      const start = process.cpuUsage()
      for (let n = 0; n < 50; n++) await analysis.analyzeLogs([file], [dir])
      const cpu = process.cpuUsage(start)
      whole = Math.min(whole, (cpu.user + cpu.system) / 1000 / 50)
    }
    if (file === ordinary) analysisMs = whole
    const read = readLogTail(file)
    lines.push(
      `${name.padEnd(13)} fold and cut ${fold.toFixed(3)} ms, cut alone ${cut.toFixed(3)} ms (each with a 512 KiB copy); whole analysis ${whole.toFixed(2)} ms; ${read.lines} lines, ${read.folds.length} folds`,
    )
  }
  return { lines, analysisMs }
}

async function main() {
  mkdirSync(join(packageRoot, '.bench'), { recursive: true })
  const work = mkdtempSync(join(packageRoot, '.bench', 'worker-'))
  const delivered = new Map<string, number>()
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      let head = ''
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString('utf8')
      })
      stream.on('end', () => {
        const event = /X-Diagnostic-Event: (\S+)/i.exec(head)?.[1]
        if (event) delivered.set(event, performance.now())
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  let child: ChildProcess | undefined
  try {
    const inventory = writeWorkspace(work)
    // BENCH_NODE_ARGS passes flags to the service, e.g. --cpu-prof to profile it.
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
    const profileDir = join(work, 'profile')
    const memoryDir = join(work, 'memory')
    if (profiling) {
      mkdirSync(memoryDir)
      const probe = join(packageRoot, 'dist', 'bench', 'memory-probe.cjs')
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--require', probe)
    }
    // Started as `npm start` starts it (bin/diagnostic-service), with its memory settings.
    child = spawn(startScript, nodeArgs, {
      env: {
        ...process.env,
        PATH: pathWithThisNode(),
        DIAG_DATA_DIR: join(work, 'data'),
        DIAG_HOST: '127.0.0.1',
        DIAG_PORT: '0',
        DIAG_API_TOKEN: token,
        DIAG_INVENTORY: inventory,
        DIAG_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
        DIAG_RATE_LIMIT_PER_MINUTE: '0',
        DIAG_LOG_LEVEL: 'warn',
        ...(profiling ? { BENCH_MEMORY_DIR: memoryDir } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child?.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /ready on (https:\/\/[^\s"]+)/.exec(out)
        if (match?.[1]) resolve(match[1])
      })
      child?.on('exit', (code) => reject(new Error(`service exited with ${code}`)))
    })

    const sentAt = new Map<string, number>()
    let transportErrors = 0
    /**
     * Sends alert i until it is answered 202, a 503 or a transport error (a connection refused
     * or reset past DIAG_MAX_CONNECTIONS) retried on Alertmanager's backoff, as Alertmanager
     * retries both; resolves to the 503s. `answered` collects how long each answer took.
     */
    const deliver = async (i: number, through: Agent, answered?: number[]) => {
      const body = webhookBody(i)
      const backoff = alertmanagerBackoff()
      let rejected = 0
      for (;;) {
        const attempt = performance.now()
        const status = await post(url, body, through).catch(() => {
          transportErrors++
          return 0
        })
        if (status !== 0) answered?.push(performance.now() - attempt)
        if (status === 202) return rejected
        if (status === 503) rejected++
        else if (status !== 0) throw new Error(`webhook answered ${status}`)
        const wait = attempt + backoff() - performance.now()
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)))
      }
    }
    /** Resolves once `total` reports have been mailed since the start (or after ten minutes). */
    const allReported = async (total: number) => {
      const deadline = performance.now() + 600_000
      while (delivered.size < total && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
    }
    /**
     * Alerts [first, first + count) offered at `perSecond`, each sent when it is due whatever
     * the answers to those before it: an open loop, as a storm of alerts does not wait for
     * the service (a closed loop of senders slows down with it and measures its own backoff).
     * A 503 is retried on Alertmanager's backoff. Resolves when all are mailed.
     */
    const pacedStorm = async (first: number, count: number, perSecond: number) => {
      const transportBefore = transportErrors
      const sending: Promise<number>[] = []
      const started = performance.now()
      let lastSent = started
      for (let k = 0; k < count; k++) {
        // Due times run from the start, so an event loop that woke late catches up.
        const wait = started + (k * 1000) / perSecond - performance.now()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        lastSent = performance.now()
        sentAt.set(fingerprint(first + k), lastSent)
        sending.push(deliver(first + k, pacedAgent))
      }
      const rejected = (await Promise.all(sending)).reduce((sum, n) => sum + n, 0)
      await allReported(first + count)
      return { started, lastSent, rejected, transportErrors: transportErrors - transportBefore }
    }
    /** Sends alerts [first, first + count) from 16 senders; resolves when all are mailed. */
    const storm = async (first: number, count: number) => {
      let next = first
      let rejected = 0
      const started = performance.now()
      const fromUs = monotonicUs()
      const threadsBefore = profiling ? threadCpu(child?.pid as number) : new Map<number, number>()
      const serviceCpuStart = cpuSeconds(child?.pid)
      const benchCpuStart = process.cpuUsage()
      const accepted: number[] = []
      /** How long each webhook waited for its answer, 202 or 503: the event loop that answers them. */
      const answered: number[] = []
      const sender = async () => {
        for (let i = next++; i < first + count; i = next++) {
          const sent = performance.now()
          rejected += await deliver(i, agent, answered)
          accepted.push(performance.now())
          sentAt.set(fingerprint(i), sent)
        }
      }
      await Promise.all(Array.from({ length: senders }, sender))
      await allReported(first + count)
      const benchCpu = process.cpuUsage(benchCpuStart)
      // Every report of an earlier storm arrived before this one started.
      const reported = [...delivered.values()].filter((at) => at >= started)
      const lastReport = Math.max(...reported)
      return {
        window: { fromUs, toUs: monotonicUs() },
        threads: { before: threadsBefore, after: profiling ? threadCpu(child?.pid as number) : threadsBefore },
        seconds: (lastReport - started) / 1000,
        drainSeconds: (lastReport - Math.min(...accepted)) / 1000,
        busySeconds: busyMs(accepted, reported) / 1000,
        rejected,
        answered,
        serviceCpu: cpuSeconds(child?.pid) - serviceCpuStart,
        benchCpu: (benchCpu.user + benchCpu.system) / 1e6,
      }
    }
    const checkpoints = async () => {
      const text = await scrape(url)
      const at = (site: string) => sample(text, `diagnostic_wal_checkpoints_total{site="${site}"}`)
      return { thread: at('checkpoint_thread'), loop: at('event_loop') }
    }
    const walFile = join(work, 'data', 'diagnostic.db-wal')
    const cold = await storm(0, warmup)
    const calibrationBefore = calibrate()
    const checkpointsBefore = await checkpoints()
    let walPeak = 0
    const walWatch = setInterval(() => {
      walPeak = Math.max(walPeak, statSync(walFile, { throwIfNoEntry: false })?.size ?? 0)
    }, 50)
    const warm = await storm(warmup, alerts)
    // Read before the service's quiet stretch can end (DIAG_ANALYSIS_QUIET_SECONDS after its last analysis).
    const quietBefore = await quietCollectionsNow(url)
    clearInterval(walWatch)
    const checkpointsAfter = await checkpoints()
    const afterStorm = residentMiB(child.pid)
    const isolateAfterStorm = await memorySplitLine(url, child.pid)
    // The probe writes four times a second: its last figures are of the service idle after the storm.
    if (profiling) await new Promise((resolve) => setTimeout(resolve, 600))
    const memory = profiling ? memoryLines(child.pid as number, memoryDir) : []
    // Quiet after the storm, the service collects every isolate once: the RSS it keeps while it waits for alerts.
    const quiet = await residentWhenQuiet(url, child.pid, quietBefore)
    const isolateQuiet = quiet ? await memorySplitLine(url, child.pid) : ''
    if (profiling && quiet) await new Promise((resolve) => setTimeout(resolve, 600))
    const memoryQuiet = profiling && quiet ? memoryLines(child.pid as number, memoryDir) : []
    const calibrationAfter = calibrate()
    const folding = await foldingCost(work)
    const stages = profiling ? await analysisStages(join(work, 'logs', 'bench-00.log'), [work]) : []
    const unit = (calibrationBefore + calibrationAfter) / 2
    // The same number of alerts again, offered at a fixed rate (after the closed loop, warm).
    const pacedFirst = warmup + alerts
    const paced = await pacedStorm(pacedFirst, alerts, pacedRate)

    // Latency per alert: its event id (in the mail) maps to its bench_id label in the store.
    const reportedAt = new Map<string, number>()
    const db = new (await import('better-sqlite3')).default(join(work, 'data', 'diagnostic.db'), { readonly: true })
    const rows = db.prepare("SELECT id, json_extract(alert, '$.labels.bench_id') AS benchId FROM events").all()
    for (const row of rows as Array<{ id: string; benchId: string }>) {
      const at = delivered.get(row.id)
      if (at !== undefined) reportedAt.set(row.benchId, at)
    }
    db.close()
    /** [sent, reported] of alerts [first, first + count), each mailed. */
    const spans = (first: number, count: number) =>
      Array.from({ length: count }, (_, k) => {
        const id = fingerprint(first + k)
        return [sentAt.get(id) ?? Number.NaN, reportedAt.get(id) ?? Number.NaN] as const
      })
    const latencies = spans(warmup, alerts).map(([sent, at]) => at - sent)
    const pacedSpans = spans(pacedFirst, alerts)
    const pacedLatencies = pacedSpans.map(([sent, at]) => at - sent)
    const pacedReports = pacedSpans.map(([, at]) => at)
    // From its first report to its last, the service mails what it is offered or what it can.
    const pacedDrain = (alerts - 1) / ((Math.max(...pacedReports) - Math.min(...pacedReports)) / 1000)
    const perEvent = (seconds: number, events: number) => ((seconds * 1000) / events).toFixed(1)
    const out = (line: string) => process.stdout.write(`${line}\n`)
    out(`worker benchmark: ${alerts} distinct alerts, ${instances} instances with more than 512 KiB of log each`)
    out(`(after ${warmup} alerts that warm the process up, reported on the last line)\n`)
    out(`reports delivered     ${alerts} in ${warm.seconds.toFixed(1)} s`)
    out(
      `events/s              ${(alerts / warm.seconds).toFixed(1)}   end to end: first webhook sent to last report (a closed loop, its senders' backoff included; the target is read on the paced drain)`,
    )
    // What the worker itself drains, whatever the senders' backoff leaves idle.
    out(`drain events/s        ${(alerts / warm.drainSeconds).toFixed(1)}   first 202 to last report`)
    out(
      `busy drain events/s   ${(alerts / warm.busySeconds).toFixed(1)}   only the ${warm.busySeconds.toFixed(2)} s in which an acknowledged event was not yet reported`,
    )
    out(`alert-to-mail p50     ${percentile(latencies, 50).toFixed(0)} ms`)
    out(`alert-to-mail p99     ${percentile(latencies, 99).toFixed(0)} ms`)
    out(
      `webhook answered in   p50 ${percentile(warm.answered, 50).toFixed(1)} ms, p99 ${percentile(warm.answered, 99).toFixed(1)} ms, max ${Math.max(...warm.answered).toFixed(1)} ms (${warm.answered.length} requests, 202 or 503)`,
    )
    out(`503 queue_full        ${warm.rejected} (retried on Alertmanager's backoff)`)
    out(
      `paced storm           ${alerts} more alerts offered at ${pacedRate} events/s, each sent when due (sent in ${((paced.lastSent - paced.started) / 1000).toFixed(2)} s), ${paced.rejected} answered 503 queue_full, ${paced.transportErrors} transport errors, at most ${heldAtOnce(pacedSpans)} held at once`,
    )
    out(
      `paced drain events/s  ${pacedDrain.toFixed(1)}   first report to last (target >= 200: ${pacedDrain >= 200 ? 'met' : 'not met'}); alert-to-mail p50 ${percentile(pacedLatencies, 50).toFixed(0)} ms, p99 ${percentile(pacedLatencies, 99).toFixed(0)} ms`,
    )
    // The run's own floor: what one core reaches doing nothing but an event's log analysis.
    const floor = 1000 / folding.analysisMs
    out(
      `analysis floor        ${floor.toFixed(0)} events/s on one core (an event's read, fold, redaction and scan alone, ${folding.analysisMs.toFixed(2)} ms, below); paced drain / floor ${(pacedDrain / floor).toFixed(2)}`,
    )
    out(`service RSS           ${rssBesideTarget(afterStorm)} right after the storm`)
    out(`                      ${isolateAfterStorm}`)
    if (quiet) {
      out(
        `service RSS quiet     ${rssBesideTarget(quiet)} every isolate collected (signal ${quiet.waitedSeconds.toFixed(1)} s after the last report)`,
      )
      out(`                      ${isolateQuiet}`)
    } else out('service RSS quiet     no quiet collection (DIAG_ANALYSIS_QUIET_SECONDS=0, or no signal)')
    // docs/design.md, "Durable commits on SQLite": checkpoints on the event loop hold the webhooks.
    const ran = (site: 'thread' | 'loop') => checkpointsAfter[site] - checkpointsBefore[site]
    out(
      `WAL checkpoints       ${Number.isNaN(ran('thread')) ? 'not counted by this service' : `${ran('thread')} on the checkpoint thread, ${ran('loop')} on the event loop`}; WAL file at most ${(walPeak / 1024 / 1024).toFixed(1)} MiB (sampled every 50 ms)`,
    )
    // CPU time per event varies less than events/s on a shared machine; the benchmark's own
    // CPU per event is the baseline of the same run (it does the same work whatever changes).
    out(`service CPU / event   ${perEvent(warm.serviceCpu, alerts)} ms (all its threads)`)
    out(`benchmark CPU / event ${perEvent(warm.benchCpu, alerts)} ms (senders and SMTP server)`)
    out(`service / benchmark   ${(warm.serviceCpu / warm.benchCpu).toFixed(2)} (CPU per event, ratio)`)
    // The machine's speed itself, measured by fixed work that nothing in the service changes.
    out(
      `calibration unit      ${unit.toFixed(1)} ms of CPU (before ${calibrationBefore.toFixed(1)}, after ${calibrationAfter.toFixed(1)})`,
    )
    out(`service / calibration ${((warm.serviceCpu * 1000) / alerts / unit).toFixed(3)} (CPU per event, in units)`)
    out('folding repeated frames, CPU per 512 KiB excerpt in this process (docs/design.md, "Deep traces are folded"):')
    for (const line of folding.lines) out(`  ${line}`)
    if (warmup > 0)
      out(
        `cold start            ${(warmup / cold.seconds).toFixed(1)} events/s, service CPU / event ${perEvent(cold.serviceCpu, warmup)} ms (first ${warmup} alerts)`,
      )
    // Idle, the service retires its analysis threads (DIAG_ANALYSIS_IDLE_SECONDS); then a few
    // alerts start them again, cold: their CPU an event is the price of giving the memory back.
    const retired = await residentAfterRetirement(url, child.pid)
    // The probe writes four times a second: its next figures are of the threads retired.
    if (profiling && retired) await new Promise((resolve) => setTimeout(resolve, 600))
    const memoryRetired = profiling && retired ? memoryLines(child.pid as number, memoryDir) : []
    if (retired) {
      out(
        `service RSS idle      ${rssBesideTarget(retired)} analysis threads retired (signal ${retired.waitedSeconds.toFixed(1)} s after the report lines)`,
      )
      out(`                      ${await memorySplitLine(url, child.pid)}`)
      const restarted = await storm(warmup + 2 * alerts, restartAlerts)
      out(
        `threads restarted     service CPU / event ${perEvent(restarted.serviceCpu, restartAlerts)} ms (first ${restartAlerts} alerts after retirement; warm ${perEvent(warm.serviceCpu, alerts)} ms)`,
      )
    } else if (!profiling)
      out('service RSS idle      analysis threads not retired (DIAG_ANALYSIS_IDLE_SECONDS=0, or no signal)')
    if (profiling) {
      out("\none event's analysis by stage, CPU time in this process while the service is idle (lowest of 3 rounds):")
      for (const line of stages) out(`  ${line}`)
      out('\nCPU time of the service by thread during the measured storm (/proc/<pid>/task/*/stat):')
      for (const line of threadCpuLines(warm.threads.before, warm.threads.after, probedThreads(memoryDir), alerts))
        out(line)
      out('\nmemory of the service after the storm, idle (per isolate, from its own V8):')
      for (const line of memory) out(line)
      if (quiet) out('\nmemory of the service quiet after the storm, every isolate collected:')
      for (const line of memoryQuiet) out(line)
      if (retired) out('\nmemory of the service with its analysis threads retired, idle:')
      for (const line of memoryRetired) out(line)
      // The profiles are written when the service exits.
      const exited = new Promise((resolve) => child?.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      out('\nwhere the time of the measured storm went, by thread and stage (node --cpu-prof, sampled):')
      for (const line of stageLines(profileStages(profileDir, warm.window.fromUs, warm.window.toUs), alerts)) out(line)
    }
  } finally {
    agent.destroy()
    pacedAgent.destroy()
    child?.kill('SIGTERM')
    smtp.close()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
