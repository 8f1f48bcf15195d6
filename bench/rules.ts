// npm run bench:rules: rule evaluation time against the catalogue size. Prints the median
// time of DiagnosisEngine.diagnose() (scan and engine run) for 20 (built-in), 100 and 1,000 rules over 64 KiB and
// 512 KiB excerpts, next to one plain scan of the same text (the floor). Never fails on speed.
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
    `${'rules'.padStart(6)}${'excerpt'.padStart(10)}${'diagnose ms'.padStart(14)}${'scan ms'.padStart(10)}${'ratio'.padStart(9)}${'build ms'.padStart(11)}\n`,
  )
  for (const kib of [64, 512]) {
    const text = excerpt(kib * 1024)
    const evidence = withLogText(emptyEvidence(alert), text)
    // The floor: one pass over the same text looking for one absent literal.
    const scan = await timeIt(() => text.includes('com.example.NotPresentAnywhere'))
    for (const custom of [0, 80, 980]) {
      const started = performance.now()
      const engine = new DiagnosisEngine(builtins, versions, customRules(custom))
      const build = performance.now() - started
      await engine.diagnose(evidence) // warm-up, and the scanner's index built
      const ms = await timeIt(() => engine.diagnose(evidence))
      process.stdout.write(
        `${String(builtins.length + custom).padStart(6)}${`${kib} KiB`.padStart(10)}${ms.toFixed(2).padStart(14)}${scan.toFixed(3).padStart(10)}${(ms / scan).toFixed(0).padStart(8)}x${build.toFixed(1).padStart(11)}\n`,
      )
    }
  }
}

await main()
