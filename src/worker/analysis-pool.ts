import { Worker } from 'node:worker_threads'
import { AnalysisTimeoutError, analyzeLogs, type LogAnalysis } from '../evidence/log-analysis.js'
import type { Catalogue } from '../rules/catalogue.js'
import type { PatternSource } from '../rules/pattern-index.js'

/** Log analysis for the worker: on analysis threads, or on the main thread. */
export interface LogAnalyzer {
  /** Resolves when the analysis can run (a startup check), rejects when it cannot. */
  ready(): Promise<void>
  analyze(files: readonly string[], roots: readonly string[], catalogue: Catalogue): Promise<LogAnalysis>
  close(): Promise<void>
}

export type ThreadRequest =
  | { type: 'catalogue'; sources: PatternSource[] }
  | { type: 'analyze'; id: number; files: readonly string[]; roots: readonly string[] }

export type ThreadReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; analysis: LogAnalysis }
  | { type: 'failed'; id: number; error: string }

interface Pending {
  resolve(analysis: LogAnalysis): void
  reject(error: Error): void
}

interface Thread {
  worker: Worker
  /** Settles when the thread has loaded its code, or fails if it exits first (a bad script). */
  online: Promise<void>
  pending: Map<number, Pending>
  /** The catalogue version this thread's index was built from. */
  catalogue: Catalogue | undefined
}

/** DIAG_ANALYSIS_THREADS=0: the same analysis, on the main thread. */
export const inProcessAnalyzer: LogAnalyzer = {
  ready: async () => {},
  analyze: async (files, roots, catalogue) =>
    analyzeLogs(files, roots, (raw, markers, rewrite) => catalogue.matchRewriting(raw, markers, rewrite)),
  close: async () => {},
}

const threadScript = new URL('./analysis-thread.js', import.meta.url)

/**
 * A fixed pool of threads that read, redact and match log tails: the CPU-heavy part of an
 * event (about 512 KiB of bytes scanned per event), which would otherwise hold the event loop
 * that answers webhooks. Each thread keeps a copy of the catalogue's pattern index, sent
 * again whenever a task comes with another catalogue version (hot reload); the result is
 * the one the main thread would compute. A task goes to the thread with the fewest tasks
 * in flight. A thread that dies fails its tasks (the queue retries their events) and is
 * replaced.
 */
export class AnalysisPool implements LogAnalyzer {
  private readonly threads: Thread[] = []
  private nextId = 1
  private closing = false

  constructor(
    size: number,
    private readonly log: { error(obj: object, msg: string): void },
    private readonly script: URL = threadScript,
    /** Wall-clock bound on one analysis; past it the thread is terminated and replaced. */
    private readonly timeoutMs = 10_000,
    private readonly onTimeout: () => void = () => {},
  ) {
    for (let i = 0; i < size; i++) this.threads.push(this.spawn())
  }

  async ready(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.online))
  }

  analyze(files: readonly string[], roots: readonly string[], catalogue: Catalogue): Promise<LogAnalysis> {
    if (this.closing) return Promise.reject(new Error('the analysis pool is closed'))
    const thread = this.threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    if (thread.catalogue !== catalogue) {
      thread.worker.postMessage({ type: 'catalogue', sources: catalogue.patternSources() } satisfies ThreadRequest)
      thread.catalogue = catalogue
    }
    const id = this.nextId++
    return new Promise<LogAnalysis>((resolve, reject) => {
      // A thread stuck in one task (a costly rule on hostile text) can only be stopped by
      // terminating it; its other tasks fail with it and their events are retried.
      const expire = () => {
        thread.pending.delete(id)
        this.onTimeout()
        reject(new AnalysisTimeoutError(this.timeoutMs))
        // Replaced at once, so that no new task goes to the thread while it terminates.
        const index = this.threads.indexOf(thread)
        if (index !== -1 && !this.closing) this.threads[index] = this.spawn()
        void thread.worker.terminate()
      }
      // The bound is on the analysis: the clock starts once the thread runs, so a thread
      // that replaced a terminated one is not charged for its own start.
      let settled = false
      let timer: NodeJS.Timeout | undefined
      thread.online.then(
        () => {
          if (!settled) timer = setTimeout(expire, this.timeoutMs)
        },
        () => {},
      )
      const settle = () => {
        settled = true
        clearTimeout(timer)
      }
      thread.pending.set(id, {
        resolve: (analysis) => {
          settle()
          resolve(analysis)
        },
        reject: (error) => {
          settle()
          reject(error)
        },
      })
      thread.worker.postMessage({ type: 'analyze', id, files, roots } satisfies ThreadRequest)
    })
  }

  async close(): Promise<void> {
    this.closing = true
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()))
  }

  private spawn(): Thread {
    const worker = new Worker(this.script)
    let started = false
    let markOnline = () => {}
    const online = new Promise<void>((resolve, reject) => {
      markOnline = resolve
      worker.once('exit', (code) => reject(new Error(`analysis thread exited (${code}) before it ran`)))
    })
    online.catch(() => {}) // observed through ready()
    const thread: Thread = { worker, online, pending: new Map(), catalogue: undefined }
    thread.worker.on('message', (reply: ThreadReply) => {
      if (reply.type === 'ready') {
        started = true
        markOnline()
        return
      }
      const pending = thread.pending.get(reply.id)
      thread.pending.delete(reply.id)
      if (reply.type === 'done') pending?.resolve(reply.analysis)
      else pending?.reject(new Error(`log analysis failed: ${reply.error}`))
    })
    thread.worker.on('error', (error) => this.log.error({ err: error }, 'analysis thread failed'))
    thread.worker.on('exit', (code) => {
      for (const pending of thread.pending.values()) pending.reject(new Error(`analysis thread exited (${code})`))
      thread.pending.clear()
      // A thread that never ran would fail again: ready() reports it instead.
      if (this.closing || !started) return
      const index = this.threads.indexOf(thread)
      if (index !== -1) this.threads[index] = this.spawn()
    })
    return thread
  }
}

export function createLogAnalyzer(
  threads: number,
  log: { error(obj: object, msg: string): void },
  bound: { timeoutMs: number; onTimeout: () => void },
): LogAnalyzer {
  return threads === 0
    ? inProcessAnalyzer
    : new AnalysisPool(threads, log, threadScript, bound.timeoutMs, bound.onTimeout)
}
