import { Worker } from 'node:worker_threads'
import { AnalysisTimeoutError, analyzeLogs, type LogAnalysis } from '../../evidence/log-analysis.js'
import { type Family, loadBuiltinRules } from '../../rules/builtin-loader.js'
import type { Catalogue } from '../../rules/catalogue.js'
import { type Diagnosis, DiagnosisEngine } from '../../rules/diagnosis-engine.js'
import type { BuiltinRule, CustomRule, Evidence } from '../../rules/types.js'

/**
 * Where the worker reads logs and diagnoses: on analysis threads, or on the main thread.
 * Each place holds one live DiagnosisEngine; a registered rule is added to every one.
 */
export interface Analysis {
  /** Resolves when the analysis can run (a startup check), rejects when it cannot. */
  ready(): Promise<void>
  /** Reads, redacts and scans the log tails with the engine's scanner. */
  analyzeLogs(files: readonly string[], roots: readonly string[]): Promise<LogAnalysis>
  diagnose(evidence: Evidence): Promise<Diagnosis>
  addCustomRule(rule: CustomRule): void
  close(): Promise<void>
}

export type ThreadRequest =
  | { type: 'rules'; custom: readonly CustomRule[] }
  | { type: 'addRule'; rule: CustomRule }
  | { type: 'analyze'; id: number; files: readonly string[]; roots: readonly string[] }
  | { type: 'diagnose'; id: number; evidence: Evidence }

export type ThreadReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; value: LogAnalysis | Diagnosis }
  | { type: 'failed'; id: number; error: string }

type Task =
  | { type: 'analyze'; files: readonly string[]; roots: readonly string[] }
  | { type: 'diagnose'; evidence: Evidence }

interface Pending {
  resolve(value: LogAnalysis | Diagnosis): void
  reject(error: Error): void
}

interface Thread {
  worker: Worker
  /** Settles when the thread has built its engine, or fails if it exits first (a bad script). */
  online: Promise<void>
  pending: Map<number, Pending>
}

/** The built-in rules and their families' versions, as loaded from builtin-rules/. */
type BuiltinCatalogue = { rules: readonly BuiltinRule[]; versions: Record<Family, string> }

/** DIAG_ANALYSIS_THREADS=0: the same analysis and engine, on the main thread. */
export class InProcessAnalysis implements Analysis {
  readonly engine: DiagnosisEngine

  constructor(custom: readonly CustomRule[], builtin: BuiltinCatalogue = loadBuiltinRules()) {
    this.engine = new DiagnosisEngine(builtin.rules, builtin.versions, custom)
  }

  async ready(): Promise<void> {}

  async analyzeLogs(files: readonly string[], roots: readonly string[]): Promise<LogAnalysis> {
    return analyzeLogs(files, roots, (raw, markers, rewrite) => this.engine.scanRewriting(raw, markers, rewrite))
  }

  diagnose(evidence: Evidence): Promise<Diagnosis> {
    return this.engine.diagnose(evidence)
  }

  addCustomRule(rule: CustomRule): void {
    this.engine.addCustomRule(rule)
  }

  async close(): Promise<void> {}
}

const threadScript = new URL('./analysis-thread.js', import.meta.url)

/**
 * A fixed pool of threads that read, redact and scan log tails and run the rules: the
 * CPU-heavy part of an event (about 512 KiB of bytes scanned per event), which would
 * otherwise hold the event loop that answers webhooks. Each thread builds its engine once,
 * from the built-in files and the custom rules it is sent first; every rule registered
 * later is sent to every thread and added to its engine. Messages on a port arrive in
 * order, so a task finds every rule registered before it was posted. A task goes to the
 * thread with the fewest tasks in flight. A thread that dies fails its tasks (the queue
 * retries their events) and is replaced.
 */
export class AnalysisPool implements Analysis {
  private readonly threads: Thread[] = []
  private nextId = 1
  private closing = false

  constructor(
    size: number,
    /** The custom rules a new thread starts with: those registered so far. */
    private readonly customRules: () => readonly CustomRule[],
    private readonly log: { error(obj: object, msg: string): void },
    private readonly script: URL = threadScript,
    /** Wall-clock bound on one task; past it the thread is terminated and replaced. */
    private readonly timeoutMs = 10_000,
    private readonly onTimeout: () => void = () => {},
  ) {
    for (let i = 0; i < size; i++) this.threads.push(this.spawn())
  }

  async ready(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.online))
  }

  analyzeLogs(files: readonly string[], roots: readonly string[]): Promise<LogAnalysis> {
    return this.run({ type: 'analyze', files, roots }) as Promise<LogAnalysis>
  }

  diagnose(evidence: Evidence): Promise<Diagnosis> {
    return this.run({ type: 'diagnose', evidence }) as Promise<Diagnosis>
  }

  addCustomRule(rule: CustomRule): void {
    for (const thread of this.threads) thread.worker.postMessage({ type: 'addRule', rule } satisfies ThreadRequest)
  }

  async close(): Promise<void> {
    this.closing = true
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()))
  }

  private run(task: Task): Promise<LogAnalysis | Diagnosis> {
    if (this.closing) return Promise.reject(new Error('the analysis pool is closed'))
    const thread = this.threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    const id = this.nextId++
    return new Promise<LogAnalysis | Diagnosis>((resolve, reject) => {
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
      // The bound is on the task: the clock starts once the thread runs, so a thread that
      // replaced a terminated one is not charged for its own start.
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
        resolve: (value) => {
          settle()
          resolve(value)
        },
        reject: (error) => {
          settle()
          reject(error)
        },
      })
      thread.worker.postMessage({ ...task, id } satisfies ThreadRequest)
    })
  }

  private spawn(): Thread {
    const worker = new Worker(this.script)
    worker.postMessage({ type: 'rules', custom: this.customRules() } satisfies ThreadRequest)
    let started = false
    let markOnline = () => {}
    const online = new Promise<void>((resolve, reject) => {
      markOnline = resolve
      worker.once('exit', (code) => reject(new Error(`analysis thread exited (${code}) before it ran`)))
    })
    online.catch(() => {}) // observed through ready()
    const thread: Thread = { worker, online, pending: new Map() }
    thread.worker.on('message', (reply: ThreadReply) => {
      if (reply.type === 'ready') {
        started = true
        markOnline()
        return
      }
      const pending = thread.pending.get(reply.id)
      thread.pending.delete(reply.id)
      if (reply.type === 'done') pending?.resolve(reply.value)
      else pending?.reject(new Error(`analysis failed: ${reply.error}`))
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

/**
 * The analysis of the service. `catalogue` is the live catalogue: on the main thread its
 * built-ins, already loaded, are reused; a thread loads its own (it shares no memory).
 */
export function createAnalysis(
  threads: number,
  catalogue: () => Catalogue,
  log: { error(obj: object, msg: string): void },
  bound: { timeoutMs: number; onTimeout: () => void },
): Analysis {
  if (threads === 0) {
    const { custom, builtins, builtinVersions } = catalogue()
    return new InProcessAnalysis(custom, { rules: builtins, versions: builtinVersions })
  }
  return new AnalysisPool(threads, () => catalogue().custom, log, threadScript, bound.timeoutMs, bound.onTimeout)
}
