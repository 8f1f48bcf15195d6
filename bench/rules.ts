// npm run bench:rules: rule evaluation time against the catalogue size. Prints the median
// CPU time of DiagnosisEngine.diagnose() (scan, exception reader and engine run) for 20 (built-in), 200 and 1,000 rules
// over 64 KiB and 512 KiB excerpts of ordinary lines and of an error storm (a stack trace with causes every 40 lines),
// each with its ratio to 20 rules, for the rules that can match (the engine's selection) and for every rule (the
// reference), next to one plain scan of the same text (the floor) and the exception reader alone. Never fails on speed.
import { emptyEvidence, withLogText } from '../src/evidence/empty-evidence.js'
import { loadBuiltinRules } from '../src/rules/builtin-loader.js'
import { DiagnosisEngine } from '../src/rules/diagnosis-engine.js'
import type { CustomRule } from '../src/rules/types.js'

const runs = Number(process.env.BENCH_RUNS ?? 15)

function customRules(count: number): CustomRule[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    ruleId: null,
    branch: `CX-${String(i % 100).padStart(2, '0')}`,
    ruleName: `CustomRule${i}`,
    category: 'general',
    targetSource: 'local_file',
    // Half literals, half regular expressions with a literal anchor and alternation.
    pattern:
      i % 2 === 0
        ? `com.example.batch.Job${i}Exception: step failed`
        : `/ORDERS-${i}: (?:timeout|refused) talking to shard-\\d+/`,
    assessment: 'A generated rule for the benchmark.',
    classification: 'probable_cause',
    priority: null,
    confidence: 'medium',
    recommendedActions: ['Nothing: generated.'],
    createdBy: 'bench',
    createdAt: new Date(0).toISOString(),
  }))
}

const levels = ['INFO ', 'DEBUG', 'WARN ', 'INFO ', 'INFO ']
function excerpt(bytes: number): string {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line =
      i % 997 === 500
        ? `2026-11-22 05:00:${String(i % 60).padStart(2, '0')},123 ERROR [pool-3-thread-1] ORDERS-7: timeout talking to shard-12`
        : `2026-11-22 05:00:${String(i % 60).padStart(2, '0')},${String(i % 1000).padStart(3, '0')} ${levels[i % levels.length]} [http-nio-8080-exec-${i % 200}] com.example.orders.OrderService - processed order ${100000 + i} for customer ${i * 7} in ${i % 90} ms`
    lines.push(line)
    size += line.length + 1
  }
  return lines.join('\n').slice(0, bytes)
}

/** The same lines with a Spring/JDBC stack trace of 24 lines (three causes) after every 40th: an error storm. */
function withTraces(text: string): string {
  const trace = (i: number) =>
    [
      `2026-11-22 05:00:${String(i % 60).padStart(2, '0')},123 ERROR [http-nio-8080-exec-${i % 200}] o.a.c.c.C.[.[.[/].[dispatcherServlet] - Servlet.service() threw exception`,
      'org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection',
      ...Array.from(
        { length: 8 },
        (_, f) => `\tat com.example.orders.OrderService.step${f}(OrderService.java:${100 + f})`,
      ),
      'Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.',
      ...Array.from(
        { length: 6 },
        (_, f) => `\tat com.zaxxer.hikari.pool.HikariPool.getConnection${f}(HikariPool.java:${180 + f})`,
      ),
      `Caused by: org.postgresql.util.PSQLException: Connection to db-${i % 3}:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.`,
      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:319)',
      'Caused by: java.net.ConnectException: Connection refused',
      '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
      '\t... 42 more',
    ].join('\n')
  const lines = text.split('\n')
  const out: string[] = []
  let size = 0
  for (let i = 0; size < text.length; i++) {
    const line = i % 41 === 40 ? trace(i) : (lines[i % lines.length] as string)
    out.push(line)
    size += line.length + 1
  }
  return out.join('\n').slice(0, text.length)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * The median CPU time of one call of each function (a shared machine's other work does not
 * count), over `runs` samples taken in turn, each a batch of calls long enough (5 ms) for the
 * clock's resolution.
 */
async function timeEach(...fns: Array<() => unknown | Promise<unknown>>): Promise<number[]> {
  const batches: number[] = []
  for (const fn of fns) {
    const started = performance.now()
    await fn()
    batches.push(Math.max(1, Math.ceil(5 / Math.max(0.001, performance.now() - started))))
  }
  const samples = fns.map((): number[] => [])
  for (let i = 0; i < runs; i++) {
    for (const [f, fn] of fns.entries()) {
      const batch = batches[f] as number
      const start = cpuMs()
      for (let n = 0; n < batch; n++) await fn()
      samples[f]?.push((cpuMs() - start) / batch)
    }
  }
  return samples.map(median)
}

const timeIt = async (fn: () => unknown | Promise<unknown>) => (await timeEach(fn))[0] as number

async function main() {
  const { rules: builtins, versions } = loadBuiltinRules()
  const alert = { alertname: 'AppServerHealthCheckFailing', instance: 'app-01', severity: 'critical' }
  process.stdout.write(
    `rule evaluation: median CPU ms of ${runs} runs of diagnose(): the rules that can match (selected) and every rule, each with its ratio to 20 rules of the same text\n\n`,
  )
  process.stdout.write(
    `${'log'.padEnd(10)}${'excerpt'.padStart(8)}${'rules'.padStart(7)}${'selected ms'.padStart(13)}${'/ 20'.padStart(7)}${'every rule ms'.padStart(15)}${'/ 20'.padStart(7)}${'scan ms'.padStart(9)}${'build ms'.padStart(10)}${'reader ms'.padStart(11)}\n`,
  )
  for (const kind of ['ordinary', 'traces'] as const) {
    for (const kib of [64, 512]) {
      const plain = excerpt(kib * 1024)
      const text = kind === 'traces' ? withTraces(plain) : plain
      const evidence = withLogText(emptyEvidence(alert), text)
      // The floor: one pass over the same text looking for one absent literal.
      const scan = await timeIt(() => text.includes('com.example.NotPresentAnywhere'))
      let base: { selected: number; every: number } | undefined
      for (const custom of [0, 180, 980]) {
        const started = cpuMs()
        const engine = new DiagnosisEngine(builtins, versions, customRules(custom))
        const build = cpuMs() - started
        const reference = new DiagnosisEngine(builtins, versions, customRules(custom), true)
        // Warm-up, 300 ms of CPU time at least (each scanner's index built, and the JIT: a
        // long-running service has compiled its hot paths long ago), then the two in turn.
        for (const start = cpuMs(); cpuMs() - start < 300; ) {
          await engine.diagnose(evidence)
          await reference.diagnose(evidence)
        }
        const [selected, every] = (await timeEach(
          () => engine.diagnose(evidence),
          () => reference.diagnose(evidence),
        )) as [number, number]
        base ??= { selected, every }
        const read = (await timeIt(() => engine.readExceptions(text))).toFixed(2)
        process.stdout.write(
          `${kind.padEnd(10)}${`${kib} KiB`.padStart(8)}${String(builtins.length + custom).padStart(7)}${selected.toFixed(2).padStart(13)}${(selected / base.selected).toFixed(2).padStart(7)}${every.toFixed(2).padStart(15)}${(every / base.every).toFixed(2).padStart(7)}${scan.toFixed(3).padStart(9)}${build.toFixed(1).padStart(10)}${read.padStart(11)}\n`,
        )
      }
    }
  }
}

await main()
