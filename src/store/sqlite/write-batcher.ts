import { StoreError } from '../../errors.js'
import { isHostFault } from '../../host-faults.js'
import type { Db } from './database.js'

/** Where writes report whether the storage takes them (store/storage-health.ts). */
export interface StorageHealthPort {
  failed(operation: string, error: unknown): void
  succeeded(): void
}

interface Pending {
  write: () => unknown
  resolve: (value: never) => void
  reject: (error: unknown) => void
}

/**
 * Group commit: the writes asked for during one turn of the event loop run in order in one
 * IMMEDIATE transaction, each in its own savepoint (a failing write loses only itself),
 * and every promise settles after the commit, so one fsync (synchronous=FULL) covers them
 * all. Order is kept: a read queued after a write sees it. Used for webhook ingestion
 * (EventWriter) and for the worker's writes.
 */
export class WriteBatcher {
  private pending: Pending[] = []
  private scheduled = false
  private readonly writeBatch: (batch: Pending[]) => Array<{ value: unknown } | { error: unknown }>

  constructor(
    db: Db,
    private readonly options: {
      /** Names the batch in a StoreError when its commit fails. */
      name: string
      /** After each commit, with the results of the writes that succeeded. */
      onCommit?: (values: unknown[]) => void
      /** Tells the storage health of every commit and of every failed one. */
      health?: StorageHealthPort
    },
  ) {
    const one = db.transaction((write: () => unknown) => write())
    this.writeBatch = db.transaction((batch: Pending[]) =>
      batch.map(({ write }) => {
        try {
          return { value: one(write) }
        } catch (error) {
          // A full disk or a lock fails the whole batch: SQLite may already have rolled
          // the transaction back, so the writes after it must not run on their own.
          if (isHostFault(error)) throw error
          return { error }
        }
      }),
    ).immediate
  }

  /** Runs `write` (synchronous) in the next batch; resolves with its result once committed. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, resolve: resolve as (value: never) => void, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => this.flush())
      }
    })
  }

  /** Commits everything pending now; also called on shutdown before the database closes. */
  flush(): void {
    this.scheduled = false
    const batch = this.pending
    this.pending = []
    if (batch.length === 0) return
    let results: Array<{ value: unknown } | { error: unknown }>
    try {
      results = this.writeBatch(batch)
    } catch (error) {
      this.options.health?.failed(this.options.name, error)
      for (const item of batch) item.reject(new StoreError(`${this.options.name} batch`, { cause: error }))
      return
    }
    this.options.health?.succeeded()
    batch.forEach((item, i) => {
      const result = results[i] as { value: unknown } | { error: unknown }
      if ('error' in result) item.reject(result.error)
      else item.resolve(result.value as never)
    })
    this.options.onCommit?.(results.flatMap((result) => ('value' in result ? [result.value] : [])))
  }
}
