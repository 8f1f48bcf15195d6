import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { ownedExcerpt } from '../../src/evidence/log-analysis.js'
import type { CustomRule } from '../../src/rules/types.js'
import { AnalysisPool, InProcessAnalysis } from '../../src/worker/analysis/analysis-pool.js'
import { customRule, serverLog, threadScript } from '../helpers/analysis-fixtures.js'

const log = { error: () => {} }
const { root, logFile } = serverLog()

describe('AnalysisPool', () => {
  const pools: AnalysisPool[] = []
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()))
  })

  it('gives the same analysis and diagnosis on its threads as on the main thread, following added rules', async () => {
    const registered: CustomRule[] = []
    const pool = new AnalysisPool(2, () => registered, log, threadScript)
    pools.push(pool)
    await pool.ready()
    const local = new InProcessAnalysis([])
    const evidence = withLogText(emptyEvidence({ alertname: 'A', instance: 'app-01', severity: 'critical' }), 'x')
    for (const next of [customRule(1, 'FeedJobException: step failed'), customRule(2, '/keyStore[A-Za-z]{0,20}=/')]) {
      // Several tasks at once, so that both threads take some.
      const results = await Promise.all([1, 2, 3, 4].map(() => pool.analyzeLogs([logFile], [root])))
      const expected = await local.analyzeLogs([logFile], [root])
      for (const result of results) expect(result).toEqual(expected)
      const withMatches = { ...evidence, log: { matches: expected.matches, exceptions: expected.exceptions } }
      const diagnoses = await Promise.all([1, 2, 3, 4].map(() => pool.diagnose(withMatches)))
      const reference = await local.diagnose(withMatches)
      for (const diagnosis of diagnoses) {
        expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(reference.matches.map((m) => m.rule.branch))
        expect(diagnosis.catalogue.engine.rules).toBe(reference.catalogue.engine.rules)
      }
      registered.push(next)
      pool.addCustomRule(next)
      local.addCustomRule(next)
    }
    const last = await pool.analyzeLogs([logFile], [root])
    expect([...last.matches.keys()].sort()).toEqual([
      '/keyStore[A-Za-z]{0,20}=/',
      'FeedJobException: step failed',
      'OutOfMemoryError: Java heap space',
    ])
    expect(last.matches.get('/keyStore[A-Za-z]{0,20}=/')?.text).toContain('keyStorePassword=[REDACTED]')
    expect(last.gc).toMatchObject({ fullCollections: 1, fullCollectionsHighOccupancy: 1 })
    expect(last.matches.get('OutOfMemoryError: Java heap space')?.context.map((line) => line.number)).toEqual([
      1, 2, 3, 4, 5, 6,
    ])
    // The exception reader ran on the thread too: only its small records crossed, redacted line 1 not among them.
    expect(last.exceptions.map((r) => [r.line, r.class, r.message])).toEqual([
      [3, 'java.lang.OutOfMemoryError', 'Java heap space'],
      [5, 'com.example.batch.FeedJobException', 'step failed'],
    ])
    // The full collection at high occupancy corroborates the heap exhaustion (TD-02's corroboratedBy).
    const diagnosis = await pool.diagnose({
      ...evidence,
      gc: last.gc,
      log: { matches: last.matches, exceptions: last.exceptions },
    })
    // Its pause of more than a second is GC-03 as well, a probable cause ranked last.
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-02', 'CX-1', 'CX-2', 'GC-03'])
    expect(diagnosis.primary.classification).toBe('confirmed_cause')
  })

  it('hands the buffer the tail was read into to the main thread instead of a copy, and copies a small excerpt', async () => {
    const pool = new AnalysisPool(1, () => [], log, threadScript)
    pools.push(pool)
    await pool.ready()
    const big = join(root, 'logs', 'big.log')
    const line = (i: number) =>
      `2026-11-22 05:00:00,${String(i % 1000).padStart(3, '0')} INFO  [exec-${i}] request ${i} done`
    writeFileSync(big, `${Array.from({ length: 400 }, (_, i) => line(i)).join('\n')}\n`)
    const [threaded, local] = [
      await pool.analyzeLogs([big], [root]),
      await new InProcessAnalysis([]).analyzeLogs([big], [root]),
    ]
    expect(Buffer.from(threaded.excerpt as Uint8Array).equals(Buffer.from(local.excerpt as Uint8Array))).toBe(true)
    // The read window is the whole file; the excerpt leaves out its last newline: a copy would hold the excerpt alone.
    expect(threaded.excerpt?.byteLength).toBe(statSync(big).size - 1)
    expect(threaded.excerpt?.buffer.byteLength).toBe(statSync(big).size)
    // A few bytes of a larger buffer, and a buffer of Node's shared pool, are copied.
    const read = Buffer.allocUnsafe(64 * 1024).fill(0x61)
    expect(ownedExcerpt(read.subarray(1)).buffer).toBe(read.buffer)
    expect(ownedExcerpt(read.subarray(0, 1024)).buffer).not.toBe(read.buffer)
    const pooled = Buffer.from('a short log line')
    expect(pooled.buffer.byteLength).toBe(Buffer.poolSize)
    expect(ownedExcerpt(pooled).buffer).not.toBe(pooled.buffer)
    expect(Buffer.from(ownedExcerpt(pooled)).equals(pooled)).toBe(true)
  })

  it("runs an event's diagnosis before the log analyses of events that arrived after it", async () => {
    const pool = new AnalysisPool(1, () => [], log, threadScript)
    pools.push(pool)
    await pool.ready()
    const settled: string[] = []
    const evidence = withLogText(emptyEvidence({ alertname: 'A', instance: 'app-01', severity: 'critical' }), 'x')
    // Six analyses wait (the thread holds the first and the next), then one event's diagnosis.
    const analyses = [1, 2, 3, 4, 5, 6].map((n) =>
      pool.analyzeLogs([logFile], [root]).then(() => settled.push(`analysis ${n}`)),
    )
    const diagnosis = pool.diagnose(evidence).then(() => settled.push('diagnosis'))
    await Promise.all([...analyses, diagnosis])
    // An event whose log was read holds its excerpt until it is diagnosed and stored: it goes
    // first, so that a storm holds a few excerpts at a time rather than one per waiting event.
    expect(settled).toEqual([
      'analysis 1',
      'analysis 2',
      'diagnosis',
      'analysis 3',
      'analysis 4',
      'analysis 5',
      'analysis 6',
    ])
  })

  it('fails the tasks of a thread that dies and reports a thread that cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-pool-script-'))
    const dying = join(dir, 'dying.mjs')
    writeFileSync(
      dying,
      "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', (m) => { if (m.type === 'analyze') process.exit(3) })\nparentPort.postMessage({ type: 'ready' })\n",
    )
    const pool = new AnalysisPool(1, () => [], log, pathToFileURL(dying))
    pools.push(pool)
    await pool.ready()
    await expect(pool.analyzeLogs([logFile], [root])).rejects.toThrow('analysis thread exited (3)')
    // Replaced: the next task reaches a new thread (which dies the same way).
    await expect(pool.analyzeLogs([logFile], [root])).rejects.toThrow('analysis thread exited (3)')

    const missing = new AnalysisPool(1, () => [], log, pathToFileURL(join(dir, 'missing.mjs')))
    pools.push(missing)
    await expect(missing.ready()).rejects.toThrow(/exited \(1\) before it ran/)
  })
})
