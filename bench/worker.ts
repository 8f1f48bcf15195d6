// npm run bench:worker: a storm of 500 distinct alerts, each for an instance with more than
// 512 KiB of log, sent the way Alertmanager does (concurrent webhooks, a 503 retried after
// its Retry-After), measured until the last report reaches a local SMTP server (issue 4).
// Prints events/s, alert-to-mail latency p50/p99 and the service's RSS. Never fails on speed.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import { packageRoot } from '../src/paths.js'

const alerts = Number(process.env.BENCH_ALERTS ?? 500)
const instances = 20
const senders = 16
const token = 'bench-worker-token-00001'

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

function post(url: string, body: string): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/alerts/alertmanager`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 1) }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** User plus system CPU seconds of a process, all threads, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ 100)
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
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
    child = spawn(process.execPath, [...nodeArgs, join(packageRoot, 'dist', 'src', 'server.js')], {
      env: {
        ...process.env,
        DIAG_DATA_DIR: join(work, 'data'),
        DIAG_HOST: '127.0.0.1',
        DIAG_PORT: '0',
        DIAG_API_TOKEN: token,
        DIAG_INVENTORY: inventory,
        DIAG_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
        DIAG_RATE_LIMIT_PER_MINUTE: '0',
        DIAG_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child?.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const match = /ready on (https:\/\/\S+)/.exec(out)
        if (match?.[1]) resolve(match[1])
      })
      child?.on('exit', (code) => reject(new Error(`service exited with ${code}`)))
    })

    const sentAt = new Map<string, number>()
    let next = 0
    let rejected = 0
    const started = performance.now()
    const serviceCpuStart = cpuSeconds(child.pid)
    const benchCpuStart = process.cpuUsage()
    const sender = async () => {
      for (let i = next++; i < alerts; i = next++) {
        const instance = `bench-${String(i % instances).padStart(2, '0')}`
        const body = JSON.stringify({
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
              },
              annotations: { summary: 'bench' },
              startsAt: new Date(Date.UTC(2026, 10, 22, 5, 0, 0) + i * 1000).toISOString(),
              fingerprint: `bench${i.toString(16).padStart(8, '0')}`,
            },
          ],
        })
        const first = performance.now()
        for (;;) {
          const res = await post(url, body)
          if (res.status === 202) break
          rejected++
          await new Promise((resolve) => setTimeout(resolve, res.retryAfter * 1000))
        }
        sentAt.set(`bench${i.toString(16).padStart(8, '0')}`, first)
      }
    }
    const ids = new Map<string, string>()
    await Promise.all(Array.from({ length: senders }, sender))
    // Map fingerprints to event ids through the incidents the service recorded.
    const deadline = performance.now() + 600_000
    while (delivered.size < alerts && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const finished = Math.max(...delivered.values())
    const serviceCpu = cpuSeconds(child.pid) - serviceCpuStart
    const benchCpu = process.cpuUsage(benchCpuStart)
    const db = new (await import('better-sqlite3')).default(join(work, 'data', 'diagnostic.db'), { readonly: true })
    for (const row of db.prepare('SELECT id, identity FROM events').all() as Array<{ id: string; identity: string }>)
      ids.set(row.id, row.identity)
    db.close()
    const latencies = [...delivered].flatMap(([event, at]) => {
      const sent = sentAt.get(ids.get(event) ?? '')
      return sent === undefined ? [] : [at - sent]
    })
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024
    const seconds = (finished - started) / 1000
    process.stdout.write(
      `worker benchmark: ${alerts} distinct alerts, ${instances} instances with more than 512 KiB of log each\n\n`,
    )
    process.stdout.write(`reports delivered     ${delivered.size} of ${alerts} in ${seconds.toFixed(1)} s\n`)
    process.stdout.write(`events/s              ${(delivered.size / seconds).toFixed(1)}   (target >= 100)\n`)
    process.stdout.write(`alert-to-mail p50     ${percentile(latencies, 50).toFixed(0)} ms\n`)
    process.stdout.write(`alert-to-mail p99     ${percentile(latencies, 99).toFixed(0)} ms\n`)
    process.stdout.write(`503 queue_full        ${rejected} (retried after Retry-After)\n`)
    process.stdout.write(`service RSS           ${kib('VmRSS').toFixed(0)} MiB (peak ${kib('VmHWM').toFixed(0)} MiB)\n`)
    // CPU time per event varies far less than events/s on a shared machine.
    const perEvent = (seconds: number) => ((seconds * 1000) / delivered.size).toFixed(1)
    process.stdout.write(`service CPU / event   ${perEvent(serviceCpu)} ms (all its threads)\n`)
    process.stdout.write(
      `benchmark CPU / event ${perEvent((benchCpu.user + benchCpu.system) / 1e6)} ms (senders and SMTP server)\n`,
    )
  } finally {
    agent.destroy()
    child?.kill('SIGTERM')
    smtp.close()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
