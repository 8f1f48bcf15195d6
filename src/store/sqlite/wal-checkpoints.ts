import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import { packageRoot } from '../../paths.js'
import type { CheckpointReply, CheckpointRequest } from './checkpoint-thread.js'

/** Where a checkpoint ran: the checkpoint thread, or the event loop when the thread fell behind. */
export type CheckpointSite = 'checkpoint_thread' | 'event_loop'

export interface CheckpointOptions {
  /** WAL bytes past which the thread is asked to checkpoint: about SQLite's own 1,000 pages. */
  triggerBytes?: number
  /** WAL bytes past which the event loop checkpoints (TRUNCATE) itself: the WAL's bound when the thread falls behind or is gone. */
  hardBytes?: number
  /** The thread's compiled script; false starts none (a test of the bound). */
  thread?: URL | false
  /** The thread ends after this long without a checkpoint asked (its isolate holds about 10 MiB). */
  idleMs?: number
  /** Told of each checkpoint, by where it ran. */
  onCheckpoint?: (site: CheckpointSite) => void
  /** Told when a checkpoint fails, or the thread ends unasked (it is started again when next needed). */
  onFailure?: (error: unknown) => void
}

const sourceScript = new URL('./checkpoint-thread.js', import.meta.url)
/**
 * The compiled thread beside this module, or dist/'s copy when this module runs from the
 * TypeScript sources (the tests; test/global-setup.ts builds dist/ first).
 */
export const checkpointThreadScript = existsSync(sourceScript)
  ? sourceScript
  : pathToFileURL(join(packageRoot, 'dist', 'src', 'store', 'sqlite', 'checkpoint-thread.js'))

const defaultTrigger = 4 * 1024 * 1024
const defaultHard = 64 * 1024 * 1024

/**
 * SQLite's checkpoints off the event loop (docs/design.md, "Checkpoints on a thread of their own").
 * The service's connection runs with `wal_autocheckpoint=0`: its commits never copy the WAL
 * into the database file nor wait for that copy's syncs. After each WAL sync (wal-sync.ts),
 * the WAL file's size is read (one fstat); past `triggerBytes` a second connection on a
 * thread of its own runs a PASSIVE checkpoint. `journal_size_limit` cuts the file back to
 * `triggerBytes` when the writer starts the WAL again from its beginning, so the size
 * says how much was written since. Past `hardBytes` (the thread is behind, or gone) the
 * event loop runs a TRUNCATE checkpoint itself, as SQLite's automatic one did.
 */
export class WalCheckpoints {
  private worker: Worker | undefined
  private asked = false
  private idle: NodeJS.Timeout | undefined
  /** A thread ending (idle, or at close): its connection closes before the service's. */
  private ending: Promise<unknown> = Promise.resolve()
  private closing = false
  private readonly triggerBytes: number
  private readonly hardBytes: number

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly walSize: () => number,
    private readonly options: CheckpointOptions = {},
  ) {
    this.triggerBytes = options.triggerBytes ?? defaultTrigger
    this.hardBytes = Math.max(options.hardBytes ?? defaultHard, this.triggerBytes)
    db.pragma('wal_autocheckpoint = 0')
    db.pragma(`journal_size_limit = ${this.triggerBytes}`)
  }

  /** After a WAL sync: asks the thread past the trigger, checkpoints here past the bound. Never throws. */
  afterSync(): void {
    try {
      const size = this.walSize()
      if (size > this.hardBytes) this.onEventLoop()
      else if (size > this.triggerBytes) this.askThread()
    } catch (error) {
      this.options.onFailure?.(error)
    }
  }

  /** Ends the thread and its connection; the service's connection closes after. */
  async close(): Promise<void> {
    this.closing = true
    this.end()
    await this.ending
  }

  private end(): void {
    clearTimeout(this.idle)
    const worker = this.worker
    this.worker = undefined
    if (!worker) return
    const exited = new Promise((resolve) => worker.once('exit', resolve))
    // Waited for: the process must not end before the thread's connection has closed, or
    // the service's (the last) would not remove the WAL.
    worker.ref()
    worker.postMessage({ type: 'close' } satisfies CheckpointRequest)
    this.ending = Promise.all([this.ending, exited])
  }

  private onEventLoop(): void {
    // TRUNCATE waits for the readers (the service's own busy timeout of 2 ms) and gives the
    // file back; busy (the thread's checkpoint holds SQLite's checkpoint lock, a reader an
    // old snapshot), it is tried again after the next sync.
    const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
    if (result?.busy === 0) this.options.onCheckpoint?.('event_loop')
  }

  private askThread(): void {
    if (this.asked || this.closing || this.options.thread === false) return
    clearTimeout(this.idle)
    this.worker ??= this.start(this.options.thread ?? checkpointThreadScript)
    this.asked = true
    this.worker.postMessage({ type: 'checkpoint' } satisfies CheckpointRequest)
  }

  private start(script: URL): Worker {
    // It allocates almost nothing: a small young generation keeps its isolate small.
    const worker = new Worker(script, {
      workerData: { file: this.file },
      resourceLimits: { maxYoungGenerationSizeMb: 1 },
    })
    // Never what keeps the process alive: the service's connection closes it (close()).
    worker.unref()
    worker.on('message', (reply: CheckpointReply) => {
      this.asked = false
      this.idle = setTimeout(() => this.end(), this.options.idleMs ?? 30_000).unref()
      if (reply.type === 'checkpointed') this.options.onCheckpoint?.('checkpoint_thread')
      else this.options.onFailure?.(Object.assign(new Error(reply.message), { code: reply.code }))
    })
    const gone = (error: unknown) => {
      if (this.worker !== worker) return
      this.worker = undefined
      this.asked = false
      if (!this.closing) this.options.onFailure?.(error)
    }
    worker.on('error', gone)
    worker.on('exit', (code) => gone(new Error(`the checkpoint thread exited (code ${code})`)))
    return worker
  }

  /** Whether the thread has been asked and has not answered yet: its checkpoint may hold SQLite's checkpoint lock. */
  get checkpointing(): boolean {
    return this.asked
  }

  /** The running thread, for a test that ends it. */
  get thread(): Worker | undefined {
    return this.worker
  }
}
