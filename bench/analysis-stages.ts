// The stages of one event's analysis, each timed alone in CPU time, in the benchmark's own
// process while the service is idle (docs/performance.md, "Where one event's time and memory
// go"): what an analysis thread does for one of the storm's events, step by step.
import { deserialize, serialize } from 'node:v8'
import { emptyEvidence } from '../src/evidence/empty-evidence.js'
import { summarizeGc } from '../src/evidence/gc-log.js'
import { collectTailsForRedaction } from '../src/evidence/log-collector.js'
import { redactionOf } from '../src/evidence/redact.js'
import { exceptionsOf } from '../src/rules/exception-facts.js'
import { candidateLines } from '../src/text/exceptions/candidates.js'
import { excerptOf } from '../src/text/excerpt.js'
import { InProcessAnalysis } from '../src/worker/analysis/in-process-analysis.js'

const used = (start: NodeJS.CpuUsage) => {
  const cpu = process.cpuUsage(start)
  return cpu.user + cpu.system
}

/**
 * CPU milliseconds per run of `work` over at least 200 ms of CPU time, after runs that warm
 * it up; the lowest of three rounds (the least disturbed by the machine's other work).
 */
export async function cpuMsPerRun(work: () => unknown): Promise<number> {
  for (let i = 0; i < 20; i++) await work()
  let best = Number.POSITIVE_INFINITY
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage()
    let runs = 0
    while (used(start) < 200_000) {
      await work()
      runs++
    }
    best = Math.min(best, used(start) / 1000 / runs)
  }
  return best
}

/** Each stage of the analysis of `file` (an instance's log of the storm), in CPU ms a run. */
export async function analysisStages(file: string, roots: readonly string[]): Promise<string[]> {
  const analysis = new InProcessAnalysis([])
  const { engine } = analysis
  const redaction = redactionOf({})
  const { prepare, markers, rewrite } = redaction
  const read = () => collectTailsForRedaction([file], roots, undefined, prepare)
  const { bytes } = read()
  const scan = () => engine.scanRewriting(bytes, markers, rewrite)
  const { excerpt, matches, wordLines } = scan()
  const redacted = excerpt.bytes
  const exceptions = exceptionsOf(excerptOf(redacted), undefined, wordLines)
  const result = await analysis.analyzeLogs([file], roots)
  const alert = { alertname: 'AppServerHealthCheckFailing', instance: 'bench-00', severity: 'critical' }
  const evidence = { ...emptyEvidence(alert), available: true, log: { matches, exceptions }, gc: result.gc }
  const diagnosis = await engine.diagnose(evidence)
  const crossing = (value: unknown) => () => deserialize(serialize(value))
  const stages: Array<[string, () => unknown]> = [
    ['read the tail (512 KiB, folding)', read],
    ['redact and scan, one pass (record join, the reader’s candidate lines)', scan],
    ['  the redaction markers alone, same pass', () => redaction.index.scanRewriting(bytes, rewrite)],
    ['exception reader, on the lines the scan noted', () => exceptionsOf(excerptOf(redacted), undefined, wordLines)],
    ['  a candidate pass of its own (when the scan noted none)', () => candidateLines(redacted)],
    ['  decoding the whole excerpt, as it did before', () => redacted.toString('utf8')],
    ['GC log summary', () => summarizeGc(excerptOf(redacted))],
    ['the whole analysis (read to exceptions)', () => analysis.analyzeLogs([file], roots)],
    ['its result crossing to the main thread (structured clone)', crossing(result)],
    ['engine: diagnose (facts, rules, ranking)', () => engine.diagnose(evidence)],
    ['the diagnosis crossing back (structured clone)', crossing(diagnosis)],
  ]
  const lines: string[] = []
  for (const [name, work] of stages) {
    lines.push(`${name.padEnd(72)}${(await cpuMsPerRun(work)).toFixed(3).padStart(8)} ms`)
  }
  return lines
}
