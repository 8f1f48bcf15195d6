import { afterAll, describe, expect, it } from 'vitest'
import { emptyEvidence } from '../../src/evidence/empty-evidence.js'
import type { CustomRule } from '../../src/rules/types.js'
import { AnalysisPool } from '../../src/worker/analysis/analysis-pool.js'
import { customRule, serverLog, threadScript } from '../helpers/analysis-fixtures.js'
import { testTimers } from '../helpers/test-timers.js'

// Issue 31: idle, the pool retires its analysis threads (their isolates' memory goes back) and
// starts them again with the next task. The idle period runs on a clock and timer the test
// moves itself: it counts timers and fires them, it never waits for one.

const log = { error: () => {} }
const { root, logFile } = serverLog()
const idleMs = 60_000

/** The test's clock, each elapse firing the one pending timer (there is at most one, due or early). */
function fakeTimers() {
  const clock = testTimers()
  return {
    ...clock,
    elapse(ms: number) {
      const [timer, ...others] = clock.pending()
      expect(others).toHaveLength(0)
      expect(timer).toBeDefined()
      // Fired when the period has passed, whatever the timer's own due time: early firing is what the pool must handle.
      clock.elapse(ms)
      if (timer && !timer.fired) {
        timer.fired = true
        timer.fire()
      }
    },
  }
}

describe('an idle analysis pool', () => {
  const pools: AnalysisPool[] = []
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()))
  })

  /** A pool of one thread with the fake idle period; `threads` records the gauge's values. */
  function idlePool(registered: CustomRule[] = []) {
    const clock = fakeTimers()
    const threads: number[] = []
    let retired = () => {}
    const pool = new AnalysisPool(
      1,
      () => registered,
      log,
      threadScript,
      10_000,
      () => {},
      60_000,
      {},
      {
        idleMs,
        timers: clock.timers,
        onThreads: (running) => threads.push(running),
        onRetired: () => retired(),
      },
    )
    pools.push(pool)
    /** Resolves when the retired threads have exited. */
    const nextRetirement = () =>
      new Promise<void>((resolve) => {
        retired = resolve
      })
    return { pool, clock, threads, nextRetirement }
  }

  it('retires its thread after the idle period and starts it again with every rule, one registered while retired too', async () => {
    const registered: CustomRule[] = [customRule(1, 'FeedJobException: step failed')]
    const { pool, clock, threads, nextRetirement } = idlePool(registered)
    await pool.ready()
    const before = await pool.analyzeLogs([logFile], [root])
    expect([...before.matches.keys()]).toContain('FeedJobException: step failed')

    const retirement = nextRetirement()
    clock.elapse(idleMs)
    await retirement
    expect(threads).toEqual([1, 0])

    // Registered while no thread runs: the restarted thread's engine is built with it.
    const added = customRule(2, '/keyStore[A-Za-z]{0,20}=/')
    registered.push(added)
    pool.addCustomRule(added)
    const after = await pool.analyzeLogs([logFile], [root])
    expect(threads).toEqual([1, 0, 1])
    expect([...after.matches.keys()].sort()).toEqual([
      '/keyStore[A-Za-z]{0,20}=/',
      'FeedJobException: step failed',
      'OutOfMemoryError: Java heap space',
    ])
    const diagnosis = await pool.diagnose({
      ...emptyEvidence({ alertname: 'A', instance: 'app-01', severity: 'critical' }),
      gc: after.gc,
      log: { matches: after.matches, exceptions: after.exceptions },
    })
    expect(diagnosis.matches.map((m) => m.rule.branch)).toEqual(['TD-02', 'CX-1', 'CX-2', 'GC-03'])
  })

  it('arms one timer per idle stretch and none while tasks run; a timer that fires while busy retires nothing', async () => {
    const { pool, clock, threads } = idlePool()
    await pool.ready()
    expect(clock.armed).toHaveLength(1) // idle from the start
    // Tasks one after another and many at once: the pool goes busy and idle 40 times.
    for (let i = 0; i < 20; i++) await pool.analyzeLogs([logFile], [root])
    await Promise.all(Array.from({ length: 20 }, () => pool.analyzeLogs([logFile], [root])))
    expect(clock.armed).toHaveLength(1)

    // The period ends while a task runs: nothing retired, no timer armed until the pool is idle again.
    const running = pool.analyzeLogs([logFile], [root])
    clock.elapse(idleMs)
    expect(clock.armed).toHaveLength(1)
    await running
    expect(clock.armed).toHaveLength(2)
    expect(clock.armed[1]?.ms).toBe(idleMs)
    // Fired early (the stretch began later than the timer): armed again for what is left.
    clock.elapse(idleMs / 2)
    expect(clock.armed).toHaveLength(3)
    expect(clock.armed[2]?.ms).toBe(idleMs / 2)
    expect(threads).toEqual([1])
    await expect(pool.analyzeLogs([logFile], [root])).resolves.toBeDefined()
  })

  it('takes a task that arrives while its thread is being retired, on a new thread', async () => {
    const { pool, clock, threads } = idlePool()
    await pool.ready()
    clock.elapse(idleMs) // terminates the thread; its exit comes later
    const analysis = await pool.analyzeLogs([logFile], [root])
    expect([...analysis.matches.keys()]).toContain('OutOfMemoryError: Java heap space')
    // Started again at once: whenever the retired thread's exit comes, the gauge never says 0.
    await pool.close()
    expect(threads.length).toBeGreaterThanOrEqual(2)
    expect(new Set(threads)).toEqual(new Set([1]))
  })

  it('does not retire a thread that is still building its engine, and retires it a period later', async () => {
    const { pool, clock, threads, nextRetirement } = idlePool()
    clock.elapse(idleMs) // before ready: asked again a period later
    expect(clock.armed.map((timer) => timer.ms)).toEqual([idleMs, idleMs])
    await pool.ready()
    const retirement = nextRetirement()
    clock.elapse(idleMs)
    await retirement
    expect(threads).toEqual([1, 0])
  })

  it('closes while retired, and while its thread is being retired', async () => {
    const retired = idlePool()
    await retired.pool.ready()
    const retirement = retired.nextRetirement()
    retired.clock.elapse(idleMs)
    await retirement
    await retired.pool.close()
    await expect(retired.pool.analyzeLogs([logFile], [root])).rejects.toThrow('the analysis pool is closed')

    const retiring = idlePool()
    await retiring.pool.ready()
    retiring.clock.elapse(idleMs)
    await retiring.pool.close()
    await expect(
      retiring.pool.diagnose(emptyEvidence({ alertname: 'A', instance: 'app-01', severity: 'critical' })),
    ).rejects.toThrow('closed')
    // Closed, the pool arms no timer any more.
    expect(retiring.clock.pending()).toHaveLength(0)
  })
})
