// npm run bench:rules: rule evaluation time against the catalogue size. Prints the median
// time of DiagnosisEngine.diagnose() (scan, exception reader and engine run) for 20 (built-in), 100 and 1,000 rules
// over 64 KiB and 512 KiB excerpts of ordinary lines and of an error storm (a stack trace with causes every 40 lines),
// next to one plain scan of the same text (the floor) and the exception reader alone. Never fails on speed.
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

async function timeIt(fn: () => unknown | Promise<unknown>): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await fn()
    samples.push(performance.now() - start)
  }
  return median(samples)
}

async function main() {
  const { rules: builtins, versions } = loadBuiltinRules()
  const alert = { alertname: 'AppServerHealthCheckFailing', instance: 'app-01', severity: 'critical' }
  process.stdout.write(`rule evaluation: median of ${runs} runs, diagnose() against one plain scan of the text\n\n`)
  process.stdout.write(
    `${'log'.padEnd(10)}${'rules'.padStart(6)}${'excerpt'.padStart(10)}${'diagnose ms'.padStart(14)}${'scan ms'.padStart(10)}${'ratio'.padStart(9)}${'build ms'.padStart(11)}${'reader ms'.padStart(11)}\n`,
  )
  for (const kind of ['ordinary', 'traces'] as const) {
    for (const kib of [64, 512]) {
      const plain = excerpt(kib * 1024)
      const text = kind === 'traces' ? withTraces(plain) : plain
      const evidence = withLogText(emptyEvidence(alert), text)
      // The floor: one pass over the same text looking for one absent literal.
      const scan = await timeIt(() => text.includes('com.example.NotPresentAnywhere'))
      for (const custom of [0, 80, 980]) {
        const started = performance.now()
        const engine = new DiagnosisEngine(builtins, versions, customRules(custom))
        const build = performance.now() - started
        await engine.diagnose(evidence) // warm-up, and the scanner's index built
        const ms = await timeIt(() => engine.diagnose(evidence))
        // The exception reader alone, where the engine has one (the figure of docs/performance.md).
        const reader = (engine as { readExceptions?: (text: string) => unknown }).readExceptions
        const read = reader ? (await timeIt(() => reader.call(engine, text))).toFixed(2) : '-'
        process.stdout.write(
          `${kind.padEnd(10)}${String(builtins.length + custom).padStart(6)}${`${kib} KiB`.padStart(10)}${ms.toFixed(2).padStart(14)}${scan.toFixed(3).padStart(10)}${(ms / scan).toFixed(0).padStart(8)}x${build.toFixed(1).padStart(11)}${read.padStart(11)}\n`,
        )
      }
    }
  }
}

await main()
