import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { Catalogue } from '../../src/rules/catalogue.js'
import type { CustomRule } from '../../src/rules/types.js'
import { AnalysisPool, inProcessAnalyzer } from '../../src/worker/analysis-pool.js'

// The threads run the compiled script (test/global-setup.ts builds dist/ first).
const threadScript = pathToFileURL(join(packageRoot, 'dist', 'src', 'worker', 'analysis-thread.js'))
const log = { error: () => {} }

const root = mkdtempSync(join(tmpdir(), 'diag-pool-'))
mkdirSync(join(root, 'logs'))
const logFile = join(root, 'logs', 'server.log')
writeFileSync(
  logFile,
  [
    '2026-11-22 05:00:00,001 INFO  [main] starting with -Djavax.net.ssl.keyStorePassword=changeit',
    '[2026-11-22T05:00:01.001+0000][info][gc] GC(7) Pause Full (Allocation Failure) 2040M->1990M(2048M) 2345.678ms',
    'java.lang.OutOfMemoryError: Java heap space',
    '\tat com.example.orders.Export.render(Export.java:212)',
    'com.example.batch.FeedJobException: step failed',
    'tail line',
  ].join('\n'),
)

const builtins = loadBuiltinRules()
const customRule = (id: number, pattern: string): CustomRule => ({
  id,
  ruleId: null,
  branch: `CX-${id}`,
  ruleName: `Custom${id}`,
  category: 'general',
  targetSource: 'local_file',
  pattern,
  assessment: 'A test rule.',
  classification: 'probable_cause',
  confidence: 'medium',
  recommendedActions: ['None.'],
  createdBy: 'test',
  createdAt: new Date(0).toISOString(),
})

describe('AnalysisPool', () => {
  const pools: AnalysisPool[] = []
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()))
  })

  it('gives the same analysis on its threads as on the main thread, following hot reloads', async () => {
    const pool = new AnalysisPool(2, log, threadScript)
    pools.push(pool)
    await pool.ready()
    let catalogue = new Catalogue(builtins.rules, [], builtins.versions)
    for (const next of [customRule(1, 'FeedJobException: step failed'), customRule(2, '/keyStore[A-Za-z]{0,20}=/')]) {
      // Several tasks at once, so that both threads take some.
      const results = await Promise.all([1, 2, 3, 4].map(() => pool.analyze([logFile], [root], catalogue)))
      const expected = await inProcessAnalyzer.analyze([logFile], [root], catalogue)
      for (const result of results) expect(result).toEqual(expected)
      catalogue = catalogue.withCustomRule(next)
    }
    const last = await pool.analyze([logFile], [root], catalogue)
    expect([...last.matches.keys()].sort()).toEqual(['TD-02', 'custom-1', 'custom-2'])
    expect(last.matches.get('custom-2')?.text).toContain('keyStorePassword=[REDACTED]')
    expect(last.gc).toMatchObject({ fullCollections: 1, fullCollectionsHighOccupancy: 1 })
    expect(last.matches.get('TD-02')?.context.map((line) => line.number)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('fails the tasks of a thread that dies and reports a thread that cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-pool-script-'))
    const dying = join(dir, 'dying.mjs')
    writeFileSync(
      dying,
      "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', (m) => { if (m.type === 'analyze') process.exit(3) })\nparentPort.postMessage({ type: 'ready' })\n",
    )
    const pool = new AnalysisPool(1, log, pathToFileURL(dying))
    pools.push(pool)
    await pool.ready()
    const catalogue = new Catalogue(builtins.rules, [], builtins.versions)
    await expect(pool.analyze([logFile], [root], catalogue)).rejects.toThrow('analysis thread exited (3)')
    // Replaced: the next task reaches a new thread (which dies the same way).
    await expect(pool.analyze([logFile], [root], catalogue)).rejects.toThrow('analysis thread exited (3)')

    const missing = new AnalysisPool(1, log, pathToFileURL(join(dir, 'missing.mjs')))
    pools.push(missing)
    await expect(missing.ready()).rejects.toThrow(/exited \(1\) before it ran/)
  })
})
