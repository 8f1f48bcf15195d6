import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { OffThreadCost } from '../../src/rules/off-thread-cost.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { threadCpuMs } from '../../src/rules/thread-cpu.js'
import { parsePattern } from '../../src/text/pattern.js'

// A pattern's cost is measured off the event loop (docs/design.md, "What a rule may cost"):
// the thread runs the compiled script (test/global-setup.ts builds dist/ first).
const script = pathToFileURL(join(packageRoot, 'dist', 'src', 'rules', 'pattern-cost-thread.js'))

describe('the cost measurement on a thread of its own', () => {
  it('measures in that thread’s CPU time, none of it the event loop’s', async () => {
    const costs = new OffThreadCost(script)
    const before = threadCpuMs()
    // /Timeout.{1000}/ reads 1,000 characters after every "Timeout": hundreds of ms of scans.
    const ms = await costs.measure('Timeout.{1000}', '')
    const own = threadCpuMs() - before
    expect(ms).toBeGreaterThan(50)
    expect(own).toBeLessThan(ms / 2)
  })

  it('gives the same verdicts as the measurement on the main thread', async () => {
    const safety = new PatternSafety({ timeoutMs: 60_000, cacheSize: 10 }, new OffThreadCost(script).measure)
    expect(await safety.verdict(parsePattern('/Timeout.{1000}/'))).toEqual({
      safe: false,
      reason: expect.stringMatching(/^scanning 512 KiB of text built to be slow for it takes \d+ ms of CPU time/),
    })
    expect(await safety.verdict(parsePattern('/Timeout after [0-9]{1,6} ms/'))).toEqual({ safe: true })
  })

  it('calls a measurement its thread could not finish undecided, never a refusal, and keeps no verdict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-cost-thread-'))
    const dying = join(dir, 'dying.mjs')
    writeFileSync(
      dying,
      "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', () => process.exit(3))\n",
    )
    const safety = new PatternSafety(
      { timeoutMs: 60_000, cacheSize: 10 },
      new OffThreadCost(pathToFileURL(dying)).measure,
    )
    const pattern = parsePattern('/Timeout after [0-9]{1,6} ms/')
    const first = safety.verdict(pattern)
    expect(await first).toEqual({
      safe: false,
      undecided: true,
      reason: 'its cost could not be measured (the cost thread exited (3)); try again',
    })
    expect(safety.verdict(pattern)).not.toBe(first)
  })
})
