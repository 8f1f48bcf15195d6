import { StoreError } from '../../errors.js'
import { isHostFault } from '../../host-faults.js'
import { type Db, walSync } from './database.js'
import type { WalSync } from './wal-sync.js'

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
 * and every promise settles once the commit is on stable storage: after the WAL sync that
 * covers it (wal-sync.ts), off the event loop and shared with the commits made meanwhile.
 * Order is kept: a read queued after a write sees it. Used for webhook ingestion
 * (EventWriter) and for the worker's writes.
 */
export class WriteBatcher {
  private pending: Pending[] = []
  private scheduled = false
  private readonly writeBatch: (batch: Pending[]) => Array<{ value: unknown } | { error: unknown }>
  private readonly wal: WalSync

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
    this.wal = walSync(db)
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

  /** Runs `write` (synchronous) in the next batch; resolves with its result once committed and synced. */
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
    // Healthy once synced: a commit after a failed sync is never on the disk for sure. A
    // failed sync is told to the storage health by the WalSync itself (database.ts).
    const durable = this.wal.durable()
    durable.then(
      () => this.options.health?.succeeded(),
      () => {},
    )
    batch.forEach((item, i) => {
      const result = results[i] as { value: unknown } | { error: unknown }
      // A write that failed was rolled back to its savepoint: nothing of it to wait for.
      if ('error' in result) item.reject(result.error)
      else durable.then(() => item.resolve(result.value as never), item.reject)
    })
    // Visible to this connection now: the worker may start on what was queued, as nothing
    // it makes is acknowledged or sent before a later sync, which covers this commit too.
    this.options.onCommit?.(results.flatMap((result) => ('value' in result ? [result.value] : [])))
  }
}
