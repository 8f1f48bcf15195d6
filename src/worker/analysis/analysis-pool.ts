import { Worker } from 'node:worker_threads'
import { AnalysisTimeoutError, type LogAnalysis } from '../../evidence/log-analysis.js'
import type { RedactionOptions } from '../../evidence/redaction-options.js'
import type { Diagnosis } from '../../rules/diagnosis-engine.js'
import type { CustomRule, Evidence } from '../../rules/types.js'
import { ThreadCpuClock } from '../../thread-cpu.js'
import { IdlePeriod, type IdleTimers } from './idle-period.js'
import { InProcessAnalysis } from './in-process-analysis.js'
import type { ThreadReply, ThreadRequest } from './thread-protocol.js'

export { InProcessAnalysis } // where the tests and the HTTP layer have always found it

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
  /**
   * One full, compacting collection of each running thread's isolate, after the task it runs
   * if any: resolves with the number of threads that collected (0 on the main thread).
   */
  collect(): Promise<number>
  close(): Promise<void>
}

type Task =
  | { type: 'analyze'; files: readonly string[]; roots: readonly string[]; redaction: RedactionOptions }
  | { type: 'diagnose'; evidence: Evidence }

/** A task submitted to the pool, waiting for a thread or running on one. */
interface Job {
  task: Task
  resolve(value: LogAnalysis | Diagnosis): void
  reject(error: Error): void
}

/** The one task a thread runs, and what its bound is measured from (its thread's clocks). */
type Posted = { id: number; job: Job; startedAt?: number; cpuAtStart?: number | null; check?: NodeJS.Timeout }

interface Thread {
  worker: Worker
  /** Settles when the thread has built its engine, or fails if it exits first (a bad script). */
  online: Promise<void>
  /** Said 'ready' (it takes tasks), and with it its kernel id, for its CPU clock (thread-cpu.ts). */
  started: boolean
  exited: boolean
  clock: ThreadCpuClock | null
  /** Posted to the thread, in order: the first runs, the next is ready to start after it. */
  posted: Posted[]
}

/**
 * Giving memory back when idle: after `idleMs` without a task (0: never) the pool retires its
 * threads, each an isolate of about 40 MiB after a storm, and starts them again with the next
 * task (docs/design.md, "Memory is given back when the work stops").
 */
export interface IdleRetirement {
  idleMs: number
  /** The threads running (starting or started): the pool's size, or 0 once retired and exited. */
  onThreads?: (running: number) => void
  /** After the retired threads exited: the pool has been idle for `idleMs`. */
  onRetired?: () => void
  timers?: IdleTimers
}

export const threadScript = new URL('./analysis-thread.js', import.meta.url)
/**
 * The young generation of an analysis thread's isolate, in MiB: two 8 MiB semi-spaces, the
 * bound bin/diagnostic-service sets for every isolate. V8 would let it grow to 48 (32
 * resident) under a storm, and the 512 KiB buffers the events leave dead would wait that much
 * longer for their scavenge (docs/performance.md, "Bounded young generations").
 */
export const analysisThreadLimits = { maxYoungGenerationSizeMb: 16 }
/** Tasks posted to a thread at once: the one it runs and the next, so it never waits for the main thread. */
const depth = 2

/**
 * A fixed pool of threads that read, redact and scan log tails and run the rules: the
 * CPU-heavy part of an event (about 512 KiB of bytes scanned per event), which would
 * otherwise hold the event loop that answers webhooks. Each thread builds its engine once,
 * from the built-in files and the custom rules it is sent first; every rule registered
 * later is sent to every thread and added to its engine. Messages on a port arrive in
 * order, so a task finds every rule registered before it was posted.
 *
 * Tasks wait in the pool, not on a thread: a thread holds the task it runs and the next
 * one, so the bound on a task (docs/design.md, "A bound on every analysis") measures that
 * task alone, from when its thread begins it; a thread stopped at the bound, or that dies,
 * fails the task it ran (the queue retries a dead thread's event) and its next task goes
 * back to the head of the waiting ones.
 *
 * Idle for `idle.idleMs`, the pool stops all its threads (IdleRetirement); the next task
 * starts them again, each from the custom rules registered by then (`customRules`), so a
 * rule registered while none ran is in their engines.
 */
export class AnalysisPool implements Analysis {
  private readonly threads: Thread[] = []
  private readonly waiting: Job[] = []
  private nextId = 1
  private closing = false
  private readonly idlePeriod: IdlePeriod
  /** Threads asked to collect their isolate that have not answered: each with what waits for it. */
  private readonly collecting = new Map<Thread, Array<() => void>>()
  /** Threads being terminated after the idle period: close() waits for them too. */
  private readonly retiring = new Set<Promise<unknown>>()

  constructor(
    private readonly size: number,
    /** The custom rules a new thread starts with: those registered so far. */
    private readonly customRules: () => readonly CustomRule[],
    private readonly log: { error(obj: object, msg: string): void },
    private readonly script: URL = threadScript,
    /** The bound on one task's CPU time; past it the thread is terminated and replaced. */
    private readonly timeoutMs = 10_000,
    private readonly onTimeout: (bound: 'cpu' | 'wall') => void = () => {},
    /**
     * How long a task may run in wall time whatever CPU time it used: generous, since it
     * only frees a thread that waits (a read that never returns) or a host too loaded to run it.
     */
    private readonly backstopMs = Math.max(10 * timeoutMs, 60_000),
    /** The optional masking of personal data in logs (DIAG_REDACT_*). */
    private readonly redaction: RedactionOptions = {},
    private readonly idle: IdleRetirement = { idleMs: 0 },
  ) {
    this.start()
    this.idlePeriod = new IdlePeriod(idle.idleMs, () => this.retire(), idle.timers)
  }

  async ready(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.online))
  }

  analyzeLogs(files: readonly string[], roots: readonly string[]): Promise<LogAnalysis> {
    return this.run({ type: 'analyze', files, roots, redaction: this.redaction }) as Promise<LogAnalysis>
  }

  diagnose(evidence: Evidence): Promise<Diagnosis> {
    return this.run({ type: 'diagnose', evidence }) as Promise<Diagnosis>
  }

  addCustomRule(rule: CustomRule): void {
    for (const thread of this.threads) thread.worker.postMessage({ type: 'addRule', rule } satisfies ThreadRequest)
  }

  async close(): Promise<void> {
    this.closing = true
    this.idlePeriod.close()
    for (const job of this.waiting.splice(0)) job.reject(new Error('the analysis pool is closed'))
    await Promise.all([...this.threads.map((thread) => thread.worker.terminate()), ...this.retiring])
  }

  /** Starts the pool's threads, each building its engine from the custom rules registered so far. */
  private start(): void {
    for (let i = 0; i < this.size; i++) this.threads.push(this.spawn())
    this.idle.onThreads?.(this.threads.length)
  }

  private busy(): boolean {
    return this.waiting.length > 0 || this.threads.some((thread) => thread.posted.length > 0)
  }

  /**
   * After the idle period: terminates every thread; the next task starts them again (run).
   * A thread still building its engine (at start, or a replacement) is retired a period later.
   */
  private retire(): boolean {
    if (this.busy() || this.threads.length === 0) return true
    if (this.threads.some((thread) => !thread.started && !thread.exited)) return false
    const exits = this.threads.splice(0).map((thread) => {
      thread.clock?.close()
      return thread.worker.terminate()
    })
    const retired = Promise.all(exits)
    this.retiring.add(retired)
    // Counted once their isolates are gone: what a reader of the gauge waits for.
    void retired.then(() => {
      this.retiring.delete(retired)
      this.idle.onThreads?.(this.threads.length)
      if (this.threads.length === 0) this.idle.onRetired?.()
    })
    return true
  }

  /** Asks each started thread to collect its isolate; a thread that exits first counts as not collected. */
  async collect(): Promise<number> {
    const asked = this.threads.filter((thread) => thread.started && !thread.exited)
    const answers = asked.map(
      (thread) =>
        new Promise<boolean>((settle) => {
          const waiting = this.collecting.get(thread) ?? []
          if (waiting.length === 0) thread.worker.postMessage({ type: 'collect' } satisfies ThreadRequest)
          waiting.push(() => settle(!thread.exited))
          this.collecting.set(thread, waiting)
        }),
    )
    return (await Promise.all(answers)).filter(Boolean).length
  }

  /** The thread collected its isolate, or exited: what waited for it goes on. */
  private collected(thread: Thread): void {
    const waiting = this.collecting.get(thread)
    this.collecting.delete(thread)
    for (const settle of waiting ?? []) settle()
  }

  private run(task: Task): Promise<LogAnalysis | Diagnosis> {
    if (this.closing) return Promise.reject(new Error('the analysis pool is closed'))
    return new Promise<LogAnalysis | Diagnosis>((resolve, reject) => {
      this.enqueue({ task, resolve, reject })
      this.idlePeriod.busy()
      // Retired after an idle period: started again, with every custom rule registered since.
      if (this.threads.length === 0) this.start()
      this.dispatch()
    })
  }

  /**
   * A diagnosis waits behind other diagnoses only, ahead of every waiting log analysis: its
   * event has read its log and holds the excerpt (up to 512 KiB) until it is diagnosed and
   * stored, so finishing started events first keeps a storm's memory to a few excerpts, not
   * one per event in flight (DIAG_WORKER_CONCURRENCY), and its latency to its own work. A
   * diagnosis follows an analysis of its own event, so analyses are never starved.
   */
  private enqueue(job: Job): void {
    const firstAnalysis = job.task.type === 'diagnose' ? this.waiting.findIndex((j) => j.task.type === 'analyze') : -1
    if (firstAnalysis === -1) this.waiting.push(job)
    else this.waiting.splice(firstAnalysis, 0, job)
  }

  /**
   * Gives waiting tasks, in order, to the threads that have room: first one to each idle
   * thread, then a next one to each busy thread.
   */
  private dispatch(): void {
    this.postWaiting()
    // Threads that could not even start are not replaced (ready() reports them): with none
    // left, nothing would ever take these tasks.
    if (this.waiting.length > 0 && this.threads.every((thread) => thread.exited)) {
      for (const job of this.waiting.splice(0)) job.reject(new Error('no analysis thread is running'))
    }
    if (!this.busy()) this.idlePeriod.idle()
  }

  private postWaiting(): void {
    for (let room = 1; room <= depth; room++) {
      for (const thread of this.threads) {
        if (this.waiting.length === 0) return
        if (thread.started && !thread.exited && thread.posted.length < room) this.post(thread)
      }
    }
  }

  private post(thread: Thread): void {
    const posted = { id: this.nextId++, job: this.waiting.shift() as Job }
    thread.posted.push(posted)
    thread.worker.postMessage({ ...posted.job.task, id: posted.id } satisfies ThreadRequest)
    if (thread.posted.length === 1) this.begin(thread, thread.clock?.readMs() ?? null)
  }

  /** The thread begins its first task now: `cpu` is its CPU clock at that instant. */
  private begin(thread: Thread, cpu: number | null): void {
    const first = thread.posted[0] as Posted
    first.startedAt = performance.now()
    first.cpuAtStart = cpu
    // CPU time never runs faster than the wall clock: the first look is at the bound.
    first.check = setTimeout(() => this.check(thread), this.timeoutMs)
  }

  /**
   * The verdict on a running task: over the bound when its thread has used more CPU time on
   * it than the bound (wall time where there is no CPU clock: not Linux); stopped at the
   * backstop when it has run that long without that. Otherwise it looks again when the
   * rest of the budget could be spent at the earliest.
   */
  private check(thread: Thread): void {
    const running = thread.posted[0]
    if (running?.startedAt === undefined) return
    const wallMs = performance.now() - running.startedAt
    const clock = thread.clock?.readMs() ?? null
    const cpuMs = clock === null || running.cpuAtStart == null ? null : clock - running.cpuAtStart
    // A clock that cannot be read (the thread is exiting) leaves only the backstop.
    const usedMs = thread.clock === null ? wallMs : cpuMs
    if (usedMs !== null && usedMs > this.timeoutMs) {
      this.stop(thread, new AnalysisTimeoutError(thread.clock === null ? 'wall' : 'cpu', this.timeoutMs, cpuMs))
    } else if (wallMs >= this.backstopMs) {
      this.stop(thread, new AnalysisTimeoutError('wall', this.backstopMs, cpuMs))
    } else {
      const next = Math.min(this.timeoutMs - (usedMs ?? 0), this.backstopMs - wallMs)
      running.check = setTimeout(() => this.check(thread), Math.max(1, next))
    }
  }

  /**
   * JavaScript cannot interrupt a running regular expression: the thread is terminated and
   * replaced at once, its running task failed with the timeout. The task posted after it
   * never began: it goes back to the head of the waiting tasks.
   */
  private stop(thread: Thread, error: AnalysisTimeoutError): void {
    const [running] = this.release(thread)
    const index = this.threads.indexOf(thread)
    if (index !== -1 && !this.closing) this.threads[index] = this.spawn()
    void thread.worker.terminate()
    thread.clock?.close()
    this.onTimeout(error.bound)
    running?.job.reject(error)
    this.dispatch()
  }

  /** Takes the thread's tasks back: returns the running one, re-queues the others. */
  private release(thread: Thread): Posted[] {
    const [running, ...rest] = thread.posted.splice(0)
    clearTimeout(running?.check)
    this.waiting.unshift(...rest.map((posted) => posted.job))
    return running ? [running] : []
  }

  private settle(thread: Thread, reply: Extract<ThreadReply, { type: 'done' | 'failed' }>): void {
    // Replies come in the order of the tasks; one from a thread already stopped is dropped.
    if (thread.posted[0]?.id !== reply.id) return
    const done = thread.posted.shift() as Posted
    clearTimeout(done.check)
    // The thread began its next task when it answered: its clock then is the task's start.
    if (thread.posted.length > 0) this.begin(thread, reply.cpuMs ?? thread.clock?.readMs() ?? null)
    if (reply.type === 'done') done.job.resolve(reply.value)
    else done.job.reject(new Error(`analysis failed: ${reply.error}`))
    this.dispatch()
  }

  private spawn(): Thread {
    const worker = new Worker(this.script, { resourceLimits: analysisThreadLimits })
    worker.postMessage({ type: 'rules', custom: this.customRules() } satisfies ThreadRequest)
    let markOnline = () => {}
    const online = new Promise<void>((resolve, reject) => {
      markOnline = resolve
      worker.once('exit', (code) => reject(new Error(`analysis thread exited (${code}) before it ran`)))
    })
    online.catch(() => {}) // observed through ready()
    const thread: Thread = { worker, online, started: false, exited: false, clock: null, posted: [] }
    worker.on('message', (reply: ThreadReply) => {
      if (reply.type === 'collected') return this.collected(thread)
      if (reply.type !== 'ready') return this.settle(thread, reply)
      thread.started = true
      thread.clock = ThreadCpuClock.open(reply.tid ?? null)
      markOnline()
      this.dispatch()
    })
    worker.on('error', (error) => this.log.error({ err: error }, 'analysis thread failed'))
    worker.on('exit', (code) => {
      thread.exited = true
      thread.clock?.close()
      this.collected(thread)
      const [running] = this.release(thread)
      running?.job.reject(new Error(`analysis thread exited (${code})`))
      const index = this.threads.indexOf(thread)
      // A thread that never ran would fail again: ready() reports it instead.
      if (index !== -1 && thread.started && !this.closing) this.threads[index] = this.spawn()
      this.dispatch()
    })
    return thread
  }
}
