import { Worker } from 'node:worker_threads'

/** Measures a regular expression's worst scan in CPU ms (pattern-cost.ts), here or elsewhere. */
export type CostMeasure = (source: string, flags: string) => number | Promise<number>

export const costThreadScript = new URL('./pattern-cost-thread.js', import.meta.url)

type Reply = { id: number; ms: number } | { id: number; error: string }

/**
 * The cost measurement on a thread of its own (docs/design.md, "What a rule may cost"), so
 * that its scans never hold the event loop that answers `/health/ready`. The thread starts
 * with the first measurement and ends after `idleMs` without one: registrations come in
 * bursts, and an idle isolate would hold memory for nothing.
 */
export class OffThreadCost {
  private worker: Worker | undefined
  private readonly pending = new Map<number, { resolve(ms: number): void; reject(error: Error): void }>()
  private next = 1
  private idle: NodeJS.Timeout | undefined

  constructor(
    private readonly script: URL = costThreadScript,
    private readonly idleMs = 10_000,
  ) {}

  readonly measure: CostMeasure = (source, flags) => {
    clearTimeout(this.idle)
    this.worker ??= this.spawn()
    const worker = this.worker
    const id = this.next++
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      worker.postMessage({ id, source, flags })
    })
  }

  private spawn(): Worker {
    const worker = new Worker(this.script)
    worker.unref()
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id)
      this.pending.delete(reply.id)
      if ('error' in reply) waiting?.reject(new Error(reply.error))
      else waiting?.resolve(reply.ms)
      if (this.pending.size === 0) this.idle = setTimeout(() => this.stop(worker), this.idleMs).unref()
    })
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined
      for (const waiting of this.pending.values()) waiting.reject(error)
      this.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the cost thread exited (${code})`)))
    return worker
  }

  private stop(worker: Worker): void {
    if (this.worker === worker && this.pending.size === 0) {
      this.worker = undefined
      void worker.terminate()
    }
  }
}
