import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { BroadcastChannel } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { AnalysisPool } from '../../src/worker/analysis/analysis-pool.js'

// The bound on one analysis (docs/design.md, "A bound on every analysis") with a stand-in
// thread whose tasks say what they do, by the first file name:
//   spin:N   computes until its own thread has used N ms of CPU time (read from /proc, as
//            the pool reads it), so its cost is the same on a fast or a loaded host;
//   forever  computes without end (a costly rule on hostile text);
//   hold:K   waits, using no CPU, until the test posts K on the channel;
//   block    blocks its thread for good without computing (a read that never returns);
//   quick    answers at once.
// Every task posts `started <first file>` on the channel when its thread begins it.
// No assertion depends on how fast the host is: CPU costs are counted by the thread, and a
// test waits for a task to have started (a positive signal) before it goes on.
const channelName = 'diag-analysis-bound-test'
const dir = mkdtempSync(join(tmpdir(), 'diag-analysis-bound-'))
const script = join(dir, 'stand-in-thread.mjs')
writeFileSync(
  script,
  `import { readFileSync, readlinkSync } from 'node:fs'
import { BroadcastChannel, parentPort } from 'node:worker_threads'
const channel = new BroadcastChannel(${JSON.stringify(channelName)})
channel.unref()
const released = new Set()
const waiting = new Map()
channel.onmessage = ({ data }) => {
  released.add(data)
  waiting.get(data)?.()
}
const cpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6
const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
let tasks = Promise.resolve()
// One task at a time, in order, as analysis-thread.ts runs them.
parentPort.on('message', (m) => {
  if (m.type === 'analyze' || m.type === 'diagnose') tasks = tasks.then(() => run(m))
})
async function run(m) {
  const what = m.files?.[0] ?? 'quick'
  channel.postMessage('started ' + what)
  if (what.startsWith('spin:')) {
    const until = cpuMs() + Number(what.slice(5))
    let x = 0
    while (cpuMs() < until) for (let i = 0; i < 10000; i++) x += i
  } else if (what === 'forever') {
    for (;;) {}
  } else if (what === 'block') {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
  } else if (what.startsWith('hold:')) {
    const key = what.slice(5)
    if (!released.has(key)) await new Promise((resolve) => waiting.set(key, resolve))
  }
  parentPort.postMessage({ type: 'done', id: m.id, value: { what }, cpuMs: cpuMs() })
}
parentPort.postMessage({ type: 'ready', tid })
`,
)
const log = { error: () => {} }

/** Resolves when a thread has begun a task whose first file is `what`. */
function started(what: string): Promise<void> {
  const channel = new BroadcastChannel(channelName)
  return new Promise((resolve) => {
    channel.onmessage = (event) => {
      if ((event as MessageEvent).data === `started ${what}`) {
        channel.close()
        resolve()
      }
    }
  })
}
function post(message: string): void {
  const channel = new BroadcastChannel(channelName)
  channel.postMessage(message)
  channel.close()
}
const task = (pool: AnalysisPool, what: string) => pool.analyzeLogs([what], [])

describe('the bound on one analysis', () => {
  const pools: AnalysisPool[] = []
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()))
  })
  const poolOf = (threads: number, boundMs: number, onTimeout: (bound?: string) => void = () => {}) => {
    const pool = new AnalysisPool(threads, () => [], log, pathToFileURL(script), boundMs, onTimeout)
    pools.push(pool)
    return pool
  }

  it('charges a task from when its thread begins it, not from when it was submitted', async () => {
    const timeouts: unknown[] = []
    const pool = poolOf(1, 400, (bound) => timeouts.push(bound))
    await pool.ready()
    // Each task uses 150 ms of CPU time; the third starts after 300 ms of the others'.
    const results = await Promise.allSettled(['spin:150', 'spin:150', 'spin:150'].map((what) => task(pool, what)))
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled'])
    expect(timeouts).toEqual([])
  })

  it('replaces a thread that overran without failing the tasks queued behind it', async () => {
    const timeouts: unknown[] = []
    const pool = poolOf(1, 200, (bound) => timeouts.push(bound))
    await pool.ready()
    const endless = task(pool, 'forever').then(
      () => 'finished',
      (error: Error) => error.message,
    )
    const behind = ['quick', 'spin:20', 'quick'].map((what) => task(pool, what))
    const settled = await Promise.allSettled(behind)
    expect(settled).toEqual(['quick', 'spin:20', 'quick'].map((what) => ({ status: 'fulfilled', value: { what } })))
    expect(await endless).toBe('the log analysis used more than 200 ms of CPU time')
    expect(timeouts).toEqual(['cpu'])
  })

  it('with 8 events on 2 threads, counts no waiting: none of 8 tasks of 150 ms of CPU overruns 400 ms', async () => {
    const timeouts: unknown[] = []
    const pool = poolOf(2, 400, (bound) => timeouts.push(bound))
    await pool.ready()
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => task(pool, 'spin:150')))
    expect(results.filter((result) => result.status === 'rejected')).toEqual([])
    expect(timeouts).toEqual([])
  })

  it('does not call a task that waited (a slow or busy host) an overrun: the bound is on CPU time', async () => {
    const timeouts: unknown[] = []
    const pool = poolOf(1, 100, (bound) => timeouts.push(bound))
    await pool.ready()
    const isStarted = started('hold:h1')
    const held = task(pool, 'hold:h1')
    await isStarted
    // Five bounds of wall time pass while the task uses none of its CPU time.
    await new Promise((resolve) => setTimeout(resolve, 500))
    post('h1')
    expect(await held).toEqual({ what: 'hold:h1' })
    expect(timeouts).toEqual([])
  })

  it('stops a thread blocked without computing at the wall-clock backstop, saying so, and goes on', async () => {
    const timeouts: unknown[] = []
    const pool = new AnalysisPool(
      1,
      () => [],
      log,
      pathToFileURL(script),
      100,
      (bound) => timeouts.push(bound),
      // The backstop, a multiple of the bound in the service; short here.
      300,
    )
    pools.push(pool)
    await pool.ready()
    const blocked = task(pool, 'block')
    const behind = task(pool, 'quick')
    await expect(blocked).rejects.toThrow(/^the log analysis did not finish within 300 ms \(\d+ ms of CPU time\)$/)
    expect(await behind).toEqual({ what: 'quick' })
    expect(timeouts).toEqual(['wall'])
  })
})
