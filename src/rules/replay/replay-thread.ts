// The body of a replay's thread (replay-runner.ts): its own engines, the bundles one at a
// time in the order posted, an acknowledgement after each, the result at the end.
import { parentPort, workerData } from 'node:worker_threads'
import { decodeBundleSync } from '../bundle/evidence-bundle.js'
import { ReplayEvaluation } from './replay-evaluation.js'
import type { ReplayJob, ReplayReply, ReplayRequest } from './replay-runner.js'

const port = parentPort
if (!port) throw new Error('replay-thread.js runs as a worker thread')
const job = workerData as ReplayJob
const evaluation = new ReplayEvaluation(job.builtin, job.custom, job.candidates, job.requested)
let tasks = Promise.resolve()

port.on('message', (message: ReplayRequest) => {
  tasks = tasks.then(async () => {
    if (message.type === 'end') {
      port.postMessage({ type: 'result', result: evaluation.result() } satisfies ReplayReply)
      return
    }
    const { bytes, ...bundle } = message.bundle
    await evaluation.evaluate(
      { ...bundle, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      decodeBundleSync,
    )
    port.postMessage({ type: 'ack' } satisfies ReplayReply)
  })
  // A failure is the thread's: it exits with it, and the replay fails with it.
  tasks.catch((error: unknown) => {
    throw error
  })
})
