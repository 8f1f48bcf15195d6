import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * End-to-end tests start the real process from dist/, exactly as `npm start` does, so it
 * is built first. Every temporary file of the run (test folders, data directories, the
 * services' own) goes under one folder, removed when the run ends: a run leaves nothing
 * behind, however a test ends. The test workers and the processes they start inherit TMPDIR.
 */
export default function setup(): () => void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
  const run = mkdtempSync(join(tmpdir(), 'diag-test-run-'))
  process.env.TMPDIR = run
  return () => rmSync(run, { recursive: true, force: true })
}
