import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { waitFor } from '../helpers/smtp.js'

/** `npm test`'s runner with stub suites (`name=command`), as a process. */
function runner(suites: string[], cwd: string) {
  const child = spawn(process.execPath, [join(packageRoot, 'test', 'run-all.mjs'), ...suites], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { child, exited, out: () => out, summary: () => out.slice(out.indexOf('=== npm test: the suites')) }
}

describe('npm test runs every suite and says which ran (test/run-all.mjs)', () => {
  it('runs the suites after a failed one, fails the run, and names each outcome', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'run-all-'))
    const run = runner(['first=exit 3', 'second=touch second-ran', 'third=kill -KILL $$', 'fourth=true'], cwd)
    expect(await run.exited).toBe(1)
    expect(existsSync(join(cwd, 'second-ran'))).toBe(true)
    expect(run.summary().split('\n').slice(1, 6)).toEqual([
      expect.stringMatching(/^ {2}FAILED {3}first {3}exit 3, \d+s$/),
      expect.stringMatching(/^ {2}passed {3}second {2}exit 0, \d+s$/),
      expect.stringMatching(/^ {2}FAILED {3}third {3}killed by SIGKILL, \d+s$/),
      expect.stringMatching(/^ {2}passed {3}fourth {2}exit 0, \d+s$/),
      'FAILED: 2 of 4 suites did not pass (first; third)',
    ])
  })

  it('passes when every suite passed', async () => {
    const run = runner(['first=true', 'second=exit 0'], mkdtempSync(join(tmpdir(), 'run-all-')))
    expect(await run.exited).toBe(0)
    expect(run.summary()).toContain('all 2 suites passed')
  })

  it('stops the running suite and runs no other when it is stopped itself, and says so', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'run-all-'))
    const run = runner(['first=true', 'second=touch started && exec sleep 120', 'third=touch third-ran'], cwd)
    await waitFor(() => existsSync(join(cwd, 'started')), 20_000, 'the second suite to start')
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(143)
    expect(existsSync(join(cwd, 'third-ran'))).toBe(false)
    expect(run.summary()).toMatch(
      / {2}FAILED {3}second {2}killed by SIGTERM, \d+s\n {2}not run {2}third {3}interrupted by SIGTERM\n/,
    )
  })
})
