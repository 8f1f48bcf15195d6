// npm run bench:registration: registers 1,000 custom rules, one after another, through the
// API of a running service (its real process), while a prober asks /health/ready every
// 50 ms. Prints p50 and p99 of the registration latency and of the readiness latency during
// the burst, next to a baseline measured in the same run before it: an authenticated GET of
// one rule; the regular expressions (one rule in three, of five shapes) and the literals
// apart. RSS of the service before and after. Never fails on speed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { residentMiB } from './process-stats.js'
import { startBenchService } from './service-process.js'

const count = Number(process.env.BENCH_RULES ?? 1000)
const token = 'bench-registration-token-01'
const { child, url, dir } = await startBenchService(
  token,
  { DIAG_MAX_CUSTOM_RULES: String(count + 10) },
  mkdtempSync(join(tmpdir(), 'diag-bench-registration-')),
)
const ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
const agent = new Agent({ keepAlive: true, ca })
const rssMiB = () => residentMiB(child.pid).rss

function call(method: string, path: string, body?: unknown, auth = true): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method,
        agent,
        headers: {
          ...(auth ? { authorization: `Bearer ${token}` } : {}),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
      },
    )
    req.on('error', reject)
    req.end(body ? JSON.stringify(body) : undefined)
  })
}

/** 0 -> AA, 1 -> AB, …: a branch prefix per hundred rules. */
const letters = (n: number) => String.fromCharCode(65 + Math.floor(n / 26), 65 + (n % 26))

/**
 * Regular expressions of the shapes operators write: alternations, classes, counted and
 * unbounded repetitions, word boundaries, case folding (recheck's automaton checker, and its
 * fuzzing checker for a repetition counted past 30).
 */
const regexes = [
  (i: number) => `/BENCH-${i}: (?:timeout|refused) talking to shard-[0-9]{1,3}/`,
  (i: number) => `/Job ${i} failed after [0-9]+ attempts?/i`,
  (i: number) => `/OrderService${i}\\b.{0,40}rejected/`,
  (i: number) => `/(?:pool|queue)-${i} (?:is )?(?:full|exhausted)/`,
  (i: number) => `/\\bE${i}[A-Z]{2}[0-9]{3}\\b/`,
]
/** One in three a regular expression (recheck and the cost measurement run for those). */
const isRegex = (i: number) => i % 3 === 0
const shapeOf = (i: number) => (i / 3) % regexes.length

const rule = (i: number) => ({
  branch: `B${letters(Math.floor(i / 100))}-${String(i % 100).padStart(2, '0')}`,
  ruleName: `BenchRule${i}`,
  category: 'general',
  targetSource: 'local_file',
  pattern: isRegex(i) ? (regexes[shapeOf(i)] as (i: number) => string)(i) : `com.example.bench.Job${i}Failed`,
  assessment: 'A generated rule for the benchmark.',
  classification: 'probable_cause',
  confidence: 'medium',
  recommendedActions: ['Nothing: generated.'],
})

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

const baseline: number[] = []
for (let i = 0; i < 100; i++) baseline.push((await call('GET', '/api/v1/rules/TD-01')).ms)
const rssBefore = rssMiB()

let burst = true
const readiness: number[] = []
const prober = (async () => {
  while (burst) {
    readiness.push((await call('GET', '/health/ready', undefined, false)).ms)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
})()
const registration: number[] = []
let failed = 0
for (let i = 0; i < count; i++) {
  const res = await call('POST', '/api/v1/rules', rule(i))
  if (res.status !== 201) {
    failed++
    if (failed <= 3) console.log(`rule ${i} (${rule(i).pattern}): ${res.status}`)
  }
  registration.push(res.ms)
}
burst = false
await prober
const rssAfter = rssMiB()

const base = quantile(baseline, 0.5)
const row = (name: string, values: number[]) => {
  const [p50, p99] = [quantile(values, 0.5), quantile(values, 0.99)]
  console.log(
    `${name.padEnd(64)} p50 ${p50.toFixed(1).padStart(7)} ms (${(p50 / base).toFixed(1)}x)   p99 ${p99.toFixed(1).padStart(7)} ms (${(p99 / base).toFixed(1)}x)   max ${Math.max(...values).toFixed(1)} ms`,
  )
}
console.log(`${count} registrations (${failed} not 201), ratios against the baseline p50`)
row('baseline: GET /api/v1/rules/TD-01', baseline)
row('POST /api/v1/rules', registration)
row('GET /health/ready during the burst', readiness)
row(`registrations ${count - 100}..${count}`, registration.slice(-100))
row(
  'regular expressions',
  registration.filter((_, i) => isRegex(i)),
)
row(
  `regular expressions ${count - 100}..${count}`,
  registration.slice(-100).filter((_, i) => isRegex(count - 100 + i)),
)
row(
  'literals',
  registration.filter((_, i) => !isRegex(i)),
)
for (const [k, shape] of regexes.entries()) {
  row(
    `  ${shape(1000)}`,
    registration.filter((_, i) => isRegex(i) && shapeOf(i) === k),
  )
}
console.log(`RSS ${rssBefore.toFixed(0)} MiB before, ${rssAfter.toFixed(0)} MiB after`)
agent.destroy()
child.kill('SIGTERM')
await new Promise((resolve) => child.on('exit', resolve))
rmSync(dir, { recursive: true, force: true })
