import { afterAll, describe, expect, it } from 'vitest'
import { QuietCollection } from '../../src/startup/quiet-collection.js'
import { AnalysisPool } from '../../src/worker/analysis/analysis-pool.js'
import { serverLog, threadScript } from '../helpers/analysis-fixtures.js'
import { testTimers } from '../helpers/test-timers.js'

// Issue 31: memory goes back once the work stops (docs/design.md, "Memory is given back when
// the work stops"). The quiet stretch runs on a clock and timers the test moves itself: it
// counts timers and fires them, it never waits for one.

describe('a quiet collection', () => {
  function quietOf(ms: number) {
    const clock = testTimers()
    const quiet = new QuietCollection(ms, clock.timers)
    let collections = 0
    quiet.onQuiet(async () => {
      collections++
    })
    return { quiet, clock, collections: () => collections }
  }

  it('collects once per quiet stretch, counted from the last request', () => {
    const { quiet, clock, collections } = quietOf(5000)
    clock.elapse(5000)
    expect(collections()).toBe(1) // quiet from the start: what starting left behind goes too
    clock.elapse(60_000)
    expect(collections()).toBe(1) // no activity, no second collection, no timer armed for it
    expect(clock.pending()).toHaveLength(0)

    quiet.touch()
    clock.elapse(3000)
    quiet.touch()
    clock.elapse(3000)
    expect(collections()).toBe(1) // 3 s after the last request
    clock.elapse(2000)
    expect(collections()).toBe(2)
  })

  it('is never quiet while an analysis runs, and is quiet a stretch after the last one ends', async () => {
    const { quiet, clock, collections } = quietOf(5000)
    clock.elapse(5000)
    let finish = () => {}
    const running = quiet.during(() => new Promise<string>((resolve) => (finish = () => resolve('done'))))
    quiet.touch() // a request meanwhile does not make it quiet
    clock.elapse(60_000)
    expect(collections()).toBe(1)
    finish()
    expect(await running).toBe('done')
    clock.elapse(4999)
    expect(collections()).toBe(1)
    clock.elapse(1)
    expect(collections()).toBe(2)
  })

  it('counts a failed analysis as ended', async () => {
    const { quiet, clock, collections } = quietOf(1000)
    await expect(quiet.during(() => Promise.reject(new Error('thread exited')))).rejects.toThrow('thread exited')
    clock.elapse(1000)
    expect(collections()).toBe(1)
  })

  it('survives a collection that fails, and collects again after the next activity', async () => {
    const clock = testTimers()
    const quiet = new QuietCollection(1000, clock.timers)
    let calls = 0
    quiet.onQuiet(async () => {
      calls++
      if (calls === 1) throw new Error('collection failed')
    })
    clock.elapse(1000)
    // A rejection nobody handled would fail this test (vitest reports unhandled rejections).
    await new Promise((resolve) => setImmediate(resolve))
    quiet.touch()
    clock.elapse(1000)
    expect(calls).toBe(2)
  })

  it('never collects with a period of 0, and none after close', () => {
    const never = quietOf(0)
    never.quiet.touch()
    never.clock.elapse(86_400_000)
    expect(never.collections()).toBe(0)
    const closed = quietOf(1000)
    closed.quiet.close()
    closed.clock.elapse(1000)
    expect(closed.collections()).toBe(0)
  })
})

describe("an analysis pool's collection", () => {
  const pools: AnalysisPool[] = []
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()))
  })
  const pool = (size: number) => {
    const created = new AnalysisPool(size, () => [], { error: () => {} }, threadScript)
    pools.push(created)
    return created
  }

  it('is answered by every running thread, after the task each runs', async () => {
    const two = pool(2)
    await two.ready()
    const { root, logFile } = serverLog()
    const order: string[] = []
    const analysis = two.analyzeLogs([logFile], [root]).then(() => order.push('analysis'))
    const collected = two.collect().then((threads) => order.push(`collected by ${threads}`))
    await Promise.all([analysis, collected])
    expect(order).toEqual(['analysis', 'collected by 2'])
    // Asked twice at once: one collection a thread, both answered.
    expect(await Promise.all([two.collect(), two.collect()])).toEqual([2, 2])
  })

  it('is answered when its threads exit, whether or not they collected first; none after close', async () => {
    const one = pool(1)
    await one.ready()
    const collected = one.collect()
    await one.close()
    // Terminated while collecting: the answer may or may not have crossed; the exit settles it.
    expect([0, 1]).toContain(await collected)
    expect(await one.collect()).toBe(0)
  })
})
