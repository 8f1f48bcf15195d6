import { describe, expect, it } from 'vitest'
import type { Lease, QueuePort } from '../../src/worker/ports.js'
import { Worker } from '../../src/worker/worker.js'
import { counter } from '../helpers/metrics.js'

/** An in-memory queue that records what the worker did with each lease. */
function memoryQueue(eventIds: string[], attempts: Record<string, number> = {}) {
  const waiting = eventIds.map(
    (eventId, i): Lease => ({ itemId: i + 1, eventId, token: `t${i}`, attempts: attempts[eventId] ?? 1 }),
  )
  const done: string[] = []
  const retried: string[] = []
  const failed: string[] = []
  const queue: QueuePort = {
    claimMany: async (limit) => waiting.splice(0, limit),
    renew: () => true,
    complete: (lease) => !done.includes(lease.eventId) && done.push(lease.eventId) > 0,
    retry: (lease) => retried.push(lease.eventId) > 0,
    defer: (lease) => waiting.push(lease) > 0,
    fail: (lease) => failed.push(lease.eventId) > 0,
    recoverExpired: () => ({ recovered: 0, exhausted: 0 }),
  }
  return { queue, done, retried, failed }
}

const log = { info: () => {}, warn: () => {}, error: () => {}, child: () => log }
const options = { leaseMs: 60_000, sweepMs: 60_000, pollMs: 60_000, maxAttempts: 2, retryBaseMs: 1000 }
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('Worker (D25)', () => {
  it('keeps up to `concurrency` events in flight, so their waits overlap', async () => {
    const { queue, done } = memoryQueue(Array.from({ length: 10 }, (_, i) => `e${i}`))
    const gates: Array<() => void> = []
    let inFlight = 0
    let most = 0
    const process = async () => {
      inFlight++
      most = Math.max(most, inFlight)
      await new Promise<void>((resolve) => gates.push(resolve))
      inFlight--
      return 'ok'
    }
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(queue, process, counters, { ...options, concurrency: 4 }, log)
    worker.start()
    await settle()
    expect(gates).toHaveLength(4) // four waiting at once, the other six still queued
    while (done.length < 10) {
      for (const open of gates.splice(0)) open()
      await settle()
    }
    expect(most).toBe(4)
    await worker.stop(1000)
  })

  it('retries a failing event with backoff, fails it after maxAttempts, and counts each failure', async () => {
    // maxAttempts is 2: the second attempt is the last.
    const { queue, done, retried, failed } = memoryQueue(['first-try', 'last-try'], { 'last-try': 2 })
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(
      queue,
      async () => {
        throw new Error('evidence source exploded')
      },
      counters,
      { ...options, concurrency: 2 },
      log,
    )
    worker.start()
    await settle()
    expect(retried).toEqual(['first-try'])
    expect(failed).toEqual(['last-try'])
    expect(done).toEqual([])
    expect(counters.workerFailures.n).toBe(2)
    await worker.stop(1000)
  })

  it('claims in chunks of a quarter of its slots, one commit each, rather than one by one', async () => {
    const { queue } = memoryQueue(Array.from({ length: 20 }, (_, i) => `e${i}`))
    const claims: number[] = []
    const claimMany = queue.claimMany
    queue.claimMany = async (limit) => {
      const leases = await claimMany(limit)
      if (leases.length > 0) claims.push(leases.length)
      return leases
    }
    const gates: Array<() => void> = []
    const process = () => new Promise<string>((resolve) => gates.push(() => resolve('ok')))
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(queue, process, counters, { ...options, concurrency: 8 }, log)
    worker.start()
    await settle()
    expect(claims).toEqual([8])
    gates.shift()?.()
    await settle()
    expect(claims).toEqual([8]) // one slot free: below the chunk of 2
    gates.shift()?.()
    await settle()
    expect(claims).toEqual([8, 2])
    await worker.stop(10)
  })

  it('completes each lease once: inside the commit of the processor when it asks, else after it', async () => {
    const { queue } = memoryQueue(['committed', 'gone'])
    const completions: string[] = []
    const complete = queue.complete
    queue.complete = (lease) => {
      completions.push(lease.eventId)
      return complete(lease)
    }
    const process = async (lease: Lease, completedInCommit: () => void) => {
      if (lease.eventId === 'committed') {
        // The result's commit took the queue item with it, and says so.
        queue.complete(lease)
        completedInCommit()
      }
      return 'ok'
    }
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(queue, process, counters, { ...options, concurrency: 2 }, log)
    worker.start()
    await settle()
    expect(completions.sort()).toEqual(['committed', 'gone'])
    await worker.stop(1000)
  })

  it('claims one chunk at a time: kicks during a claim lead to one more claim after its commit', async () => {
    const { queue } = memoryQueue(Array.from({ length: 6 }, (_, i) => `e${i}`))
    const commits: Array<() => void> = []
    const limits: number[] = []
    const claimMany = queue.claimMany
    queue.claimMany = (limit) => {
      limits.push(limit)
      // The claim commits when the test says so, like a WriteBatcher at the end of a turn.
      return new Promise((resolve) => commits.push(() => resolve(claimMany(limit))))
    }
    const process = async () => 'ok'
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(queue, process, counters, { ...options, concurrency: 2 }, log)
    worker.start()
    worker.kick()
    worker.kick()
    expect(limits).toEqual([2]) // the two kicks wait for the claim being committed
    commits.shift()?.()
    await settle()
    expect(limits.length).toBe(2) // one claim after it, not one per kick
    while (commits.length > 0) {
      commits.shift()?.()
      await settle()
    }
    await worker.stop(1000)
    expect(counters.workerFailures.n).toBe(0)
  })

  it('stop() waits for a claim being committed and for the events it claimed', async () => {
    const { queue, done } = memoryQueue(['claimed-before-stop'])
    let commit: () => void = () => {}
    const claimMany = queue.claimMany
    queue.claimMany = (limit) => new Promise((resolve) => (commit = () => resolve(claimMany(limit))))
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 100))
    const worker = new Worker(queue, slow, counters, { ...options, concurrency: 2 }, log)
    worker.start()
    const stopped = worker.stop(5000)
    commit()
    await stopped
    expect(done).toEqual(['claimed-before-stop'])
  })

  it('counts a failed claim and claims again on the next kick', async () => {
    const { queue, done } = memoryQueue(['after-the-failure'])
    const claimMany = queue.claimMany
    let failures = 1
    queue.claimMany = (limit) => (failures-- > 0 ? Promise.reject(new Error('database is locked')) : claimMany(limit))
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(queue, async () => 'ok', counters, { ...options, concurrency: 2 }, log)
    worker.start()
    await settle()
    expect(counters.workerFailures.n).toBe(1)
    worker.kick()
    await settle()
    expect(done).toEqual(['after-the-failure'])
    await worker.stop(1000)
  })
})
