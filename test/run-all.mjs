#!/usr/bin/env node
// `npm test`: runs every suite, whatever the ones before it did; fails when any failed; and
// ends with a summary of which suites ran and how each ended (CONTRIBUTING.md). Arguments
// `name=command` replace the suites (test/unit/run-all.test.ts runs it so).
import { spawn } from 'node:child_process'
import { constants } from 'node:os'

const defaultSuites = [
  { name: 'unit, HTTP, store, end-to-end, integration', command: "vitest run --exclude 'test/servers/**'" },
  { name: 'the HTTPS suites again on PostgreSQL', command: 'npm run test:postgres --silent' },
  { name: 'real application servers (test/servers)', command: 'vitest run test/servers' },
]

const suites =
  process.argv.length > 2
    ? process.argv.slice(2).map((argument) => {
        const at = argument.indexOf('=')
        return { name: argument.slice(0, at), command: argument.slice(at + 1) }
      })
    : defaultSuites

/** The suite running now, so that a signal to this runner reaches it. */
let current
let interruptedBy
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interruptedBy = signal
    current?.kill(signal)
  })
}

const run = (command) =>
  new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: 'inherit' })
    current = child
    child.on('error', (error) => resolve({ code: null, signal: null, error }))
    child.on('exit', (code, signal) => resolve({ code, signal }))
  })

const duration = (ms) => {
  const seconds = Math.round(ms / 1000)
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`
}

const results = []
for (const suite of suites) {
  if (interruptedBy) {
    results.push({ ...suite, outcome: 'not run', detail: `interrupted by ${interruptedBy}` })
    continue
  }
  console.log(`\n=== ${suite.name}: ${suite.command}\n`)
  const started = Date.now()
  const { code, signal, error } = await run(suite.command)
  const took = duration(Date.now() - started)
  const detail = error ? `could not start: ${error.message}` : signal ? `killed by ${signal}` : `exit ${code}`
  results.push({ ...suite, outcome: code === 0 ? 'passed' : 'FAILED', detail: `${detail}, ${took}` })
}

const width = Math.max(...results.map((result) => result.name.length))
console.log('\n=== npm test: the suites')
for (const { name, outcome, detail } of results) console.log(`  ${outcome.padEnd(7)}  ${name.padEnd(width)}  ${detail}`)
const failed = results.filter((result) => result.outcome !== 'passed')
console.log(
  failed.length === 0
    ? `all ${results.length} suites passed`
    : `FAILED: ${failed.length} of ${results.length} suites did not pass (${failed.map((r) => r.name).join('; ')})`,
)
// A run stopped by a signal exits as the shell would report it (128 + the signal's number).
process.exitCode = interruptedBy ? 128 + constants.signals[interruptedBy] : failed.length === 0 ? 0 : 1
