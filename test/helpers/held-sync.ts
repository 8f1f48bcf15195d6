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

/**
 * Holds the `n`th sync (from 1) until `answer` is shown not to have settled, then lets it
 * run: resolves with the answer, which must come only after that sync.
 */
export async function settlesAfterSync<T>(held: ReturnType<typeof heldSync>, n: number, answer: T | Promise<T>) {
  let settled = false
  const value = Promise.resolve(answer).then((v) => {
    settled = true
    return v
  })
  await held.startedCount(n)
  await turn()
  if (settled) throw new Error(`answered before sync ${n} completed`)
  held.calls[n - 1]?.release()
  return value
}
