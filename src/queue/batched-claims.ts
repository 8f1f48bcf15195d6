import type { WriteBatcher } from '../store/sqlite/write-batcher.js'
import type { QueuePort } from '../worker/ports.js'
import type { WorkQueue } from './work-queue.js'

/**
 * The worker's view of the queue, its claims joining the worker's group commit
 * (WriteBatcher). A claim mostly takes the one event queued since the last: as commits of
 * their own, claims were the most frequent fsync of the service (979 claims for 1,100
 * events in bench:worker).
 */
export function batchedClaims(queue: WorkQueue, batcher: WriteBatcher): QueuePort {
  return {
    claimMany: (limit) => batcher.run(() => queue.claimMany(limit)),
    renew: (lease) => queue.renew(lease),
    complete: (lease) => queue.complete(lease),
    retry: (lease, delayMs, error) => queue.retry(lease, delayMs, error),
    defer: (lease, delayMs, reason) => queue.defer(lease, delayMs, reason),
    fail: (lease, error) => queue.fail(lease, error),
    recoverExpired: () => queue.recoverExpired(),
  }
}
