import { StoreError } from '../../errors.js'

/** Flushes the WAL file to stable storage; `fs.fdatasync` on libuv's pool (wal-file.ts). */
export type SyncWal = () => Promise<void>

interface Waiters {
  promise: Promise<void>
  resolve: () => void
  reject: (error: unknown) => void
}

function waiters(): Waiters {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/**
 * Group sync of the WAL (D11). SQLite runs with `synchronous=NORMAL`, so a commit writes its
 * frames to the WAL without waiting for the disk; what is acknowledged waits here instead,
 * off the event loop. One sync is in flight at a time; every commit made meanwhile waits for
 * the next one, which covers them all (a sync flushes the whole file, and the WAL is
 * appended in commit order).
 *
 * `changes` is the connection's `total_changes()`: it only grows, and every commit made
 * before a sync starts is in the WAL when it starts, so a sync covers the count read then.
 *
 * A sync that fails breaks this for good: Linux may drop the dirty pages it could not write
 * and report that once, so a later sync that succeeds proves nothing about the frames
 * before it, and SQLite's recovery stops at the first frame that is missing. Every write
 * waiting, and every one after it, fails until the process starts again and SQLite recovers
 * the WAL from what is on the disk (docs/operations.md, "When the disk fails a sync").
 */
export class WalSync {
  /** The changes count covered by the last sync that succeeded. */
  private synced: number
  private inFlight: { covers: number; done: Promise<void> } | undefined
  private next: Waiters | undefined
  private failure: StoreError | undefined

  constructor(
    private readonly sync: SyncWal,
    private readonly changes: () => number,
    private readonly onFailure?: (error: unknown) => void,
  ) {
    this.synced = changes()
  }

  /** Resolves once every commit made before the call is on stable storage. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    const target = this.changes()
    if (target <= this.synced) return Promise.resolve()
    if (!this.inFlight) return this.start()
    if (this.inFlight.covers >= target) return this.inFlight.done
    this.next ??= waiters()
    return this.next.promise
  }

  /** Whether a sync failed (the process must start again before anything is acknowledged). */
  get failed(): boolean {
    return this.failure !== undefined
  }

  private start(): Promise<void> {
    const covers = this.changes()
    const done = this.sync().then(
      () => {
        this.synced = Math.max(this.synced, covers)
      },
      (error: unknown) => {
        this.failure ??= new StoreError('WAL sync', { cause: error })
        this.onFailure?.(error)
        throw this.failure
      },
    )
    this.inFlight = { covers, done }
    const after = () => {
      this.inFlight = undefined
      const next = this.next
      this.next = undefined
      if (!next) return
      if (this.failure) next.reject(this.failure)
      else this.start().then(next.resolve, next.reject)
    }
    done.then(after, after)
    return done
  }
}
