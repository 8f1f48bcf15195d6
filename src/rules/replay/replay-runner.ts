import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import type { Family } from '../builtin-loader.js'
import { decodeBundle } from '../bundle/evidence-bundle.js'
import type { BuiltinRule, CustomRule } from '../types.js'
import { ReplayEvaluation } from './replay-evaluation.js'
import type { ReplayBundle, ReplayResult } from './replay-types.js'

/** What a replay evaluates: the catalogue it was checked against, the candidates, how many events were asked for. */
export interface ReplayJob {
  builtin: { rules: readonly BuiltinRule[]; versions: Record<Family, string> }
  custom: readonly CustomRule[]
  candidates: readonly CustomRule[]
  requested: number
}

/** Runs a replay's evaluation over bundles read as it goes. */
export interface ReplayRunner {
  run(job: ReplayJob, bundles: AsyncIterable<ReplayBundle>): Promise<ReplayResult>
}

/**
 * On the main thread (DIAG_ANALYSIS_THREADS=0, and the in-process tests): the event loop
 * answers other requests between two bundles.
 */
export const inProcessReplay: ReplayRunner = {
  async run(job, bundles) {
    const evaluation = new ReplayEvaluation(job.builtin, job.custom, job.candidates, job.requested)
    for await (const bundle of bundles) {
      await evaluation.evaluate(bundle, decodeBundle)
      await yieldToEventLoop()
    }
    return evaluation.result()
  },
}

export const replayThreadScript = new URL('./replay-thread.js', import.meta.url)

/** Messages between `threadReplay` and its thread (replay-thread.ts). */
export type ReplayRequest =
  | { type: 'bundle'; bundle: Omit<ReplayBundle, 'bytes'> & { bytes: Uint8Array } }
  | { type: 'end' }
export type ReplayReply = { type: 'ack' } | { type: 'result'; result: ReplayResult }

/** Bundles posted to the thread and not yet evaluated: the reads stay a few bundles ahead, never the whole N. */
const window = 4

/**
 * On a thread of its own, started for the replay and ended with it: the CPU-heavy part (a
 * scan of each excerpt, two engine runs an event) never holds the event loop that answers
 * Alertmanager, and the live engines on the analysis threads never see it.
 */
export function threadReplay(script: URL = replayThreadScript): ReplayRunner {
  return {
    async run(job, bundles) {
      const worker = new Worker(script, { workerData: job })
      let acks = 0
      let failure: Error | undefined
      let wake: (() => void) | undefined
      const finished = new Promise<ReplayResult>((resolve, reject) => {
        const fail = (error: Error) => {
          failure ??= error
          reject(failure)
          wake?.()
        }
        worker.on('message', (reply: ReplayReply) => {
          if (reply.type === 'result') resolve(reply.result)
          else acks++
          wake?.()
        })
        worker.on('error', fail)
        worker.on('exit', (code) => fail(new Error(`the replay thread exited (code ${code}) before its result`)))
      })
      finished.catch(() => undefined)
      try {
        let posted = 0
        for await (const { eventId, incidentId, createdAt, bytes } of bundles) {
          if (failure) throw failure
          worker.postMessage({
            type: 'bundle',
            bundle: { eventId, incidentId, createdAt, bytes },
          } satisfies ReplayRequest)
          posted++
          while (posted - acks >= window && !failure) await new Promise<void>((resolve) => (wake = resolve))
        }
        worker.postMessage({ type: 'end' } satisfies ReplayRequest)
        return await finished
      } finally {
        await worker.terminate()
      }
    },
  }
}
