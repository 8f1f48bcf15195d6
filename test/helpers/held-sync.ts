import type { SyncWal } from '../../src/store/sqlite/wal-sync.js'

/**
 * The WAL's real sync, held by the test: each call waits until the test releases it (or
 * fails it), then runs the real fdatasync. Counts the syncs started.
 */
export function heldSync() {
  const calls: Array<{ release: () => void; fail: (error: Error) => void }> = []
  let started: () => void = () => {}
  const wrap =
    (real: SyncWal): SyncWal =>
    () =>
      new Promise<void>((resolve, reject) => {
        calls.push({ release: () => real().then(resolve, reject), fail: reject })
        started()
      })
  /** Resolves once `n` syncs have started. */
  const startedCount = (n: number) =>
    new Promise<void>((resolve) => {
      started = () => calls.length >= n && resolve()
      started()
    })
  return { calls, wrap, startedCount }
}

/** Settles the microtasks and one turn of the event loop: what would settle now has. */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
