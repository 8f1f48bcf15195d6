import { describe, expect, it } from 'vitest'
import type { Lease, QueuePort } from '../../src/worker/ports.js'
import { Worker } from '../../src/worker/worker.js'

/** An in-memory queue that records what the worker did with each lease. */
function memoryQueue(eventIds: string[], attempts: Record<string, number> = {}) {
  const waiting = eventIds.map(
    (eventId, i): Lease => ({ itemId: i + 1, eventId, token: `t${i}`, attempts: attempts[eventId] ?? 1 }),
  )
  const done: string[] = []
  const retried: string[] = []
  const failed: string[] = []
  const queue: QueuePort = {
    claimMany: (limit) => waiting.splice(0, limit),
    renew: () => true,
    complete: (lease) => (done.includes(lease.eventId) ? false : (done.push(lease.eventId), true)),
    retry: (lease) => (retried.push(lease.eventId), true),
    fail: (lease) => (failed.push(lease.eventId), true),
    recoverExpired: () => ({ recovered: 0, exhausted: 0 }),
  }
  return { queue, done, retried, failed }
}

const counter = () => ({
  n: 0,
  inc: function (this: { n: number }, k = 1) {
    this.n += k
  },
})
const log = { info: () => {}, warn: () => {}, error: () => {} }
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
    queue.claimMany = (limit) => {
      const leases = claimMany(limit)
      if (leases.length > 0) claims.push(leases.length)
      return leases
    }
    const gates: Array<() => void> = []
    const process = () => new Promise<string>((resolve) => gates.push(() => resolve('ok')))
    const counters = { staleLocksRecovered: counter(), staleLocksExhausted: counter(), workerFailures: counter() }
    const worker = new Worker(queue, process, counters, { ...options, concurrency: 8 }, log)
    worker.start()
    expect(claims).toEqual([8])
    gates.shift()?.()
    await settle()
    expect(claims).toEqual([8]) // one slot free: below the chunk of 2
    gates.shift()?.()
    await settle()
    expect(claims).toEqual([8, 2])
    await worker.stop(10)
  })
})
