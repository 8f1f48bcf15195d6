// The body of an analysis thread (see analysis-pool.ts): reads, redacts and scans logs and
// runs the rules off the main thread, on one live engine built from the first message; it
// says 'ready' once that engine and its scanner are built.
import { parentPort } from 'node:worker_threads'
import { analyzeLogs } from '../../evidence/log-analysis.js'
import { redactLine, secretMarkers } from '../../evidence/redact.js'
import { loadBuiltinRules } from '../../rules/builtin-loader.js'
import { DiagnosisEngine } from '../../rules/diagnosis-engine.js'
import { ownThreadId, ThreadCpuClock } from '../../thread-cpu.js'
import { collectGarbage } from './idle-period.js'
import type { ThreadReply, ThreadRequest } from './thread-protocol.js'

let engine: DiagnosisEngine | undefined
let tasks = Promise.resolve()
const tid = ownThreadId()
const clock = ThreadCpuClock.open(tid)
const cpu = () => clock?.readMs() ?? null
const port = parentPort
if (!port) throw new Error('analysis-thread.js runs as a worker thread')

const live = (): DiagnosisEngine => {
  if (!engine) throw new Error('the engine was not built: the first message names the rules')
  return engine
}

port.on('message', (message: ThreadRequest) => {
  if (message.type === 'rules') {
    const builtin = loadBuiltinRules()
    engine = new DiagnosisEngine(builtin.rules, builtin.versions, message.custom)
    // The scanner's index is built now, as part of starting: the pool gives a thread tasks
    // after 'ready', so no task is charged for building it.
    engine.scanRewriting(Buffer.alloc(0), secretMarkers, redactLine)
    port.postMessage({ type: 'ready', tid } satisfies ThreadReply)
    return
  }
  if (message.type === 'addRule') {
    live().addCustomRule(message.rule)
    return
  }
  if (message.type === 'collect') {
    // After the task running now, if any: a collection never splits one.
    tasks = tasks.then(() => port.postMessage({ type: 'collected', ms: collectGarbage() } satisfies ThreadReply))
    return
  }
  // One task at a time, in order, even when the rules run asynchronously: a reply says
  // when the next task begins, with the thread's CPU clock at that instant (the pool's bound).
  const task = message
  tasks = tasks.then(async () => {
    try {
      const value =
        task.type === 'analyze'
          ? analyzeLogs(
              task.files,
              task.roots,
              (raw, markers, rewrite) => live().scanRewriting(raw, markers, rewrite),
              task.redaction,
            )
          : await live().diagnose(task.evidence)
      // The excerpt's buffer is the analysis's own (up to 512 KiB an event, usually the one the
      // tail was read into: ownedExcerpt): it moves to the main thread instead of being copied.
      const transfer = 'excerpt' in value && value.excerpt ? [value.excerpt.buffer as ArrayBuffer] : []
      port.postMessage({ type: 'done', id: task.id, value, cpuMs: cpu() } satisfies ThreadReply, transfer)
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error)
      port.postMessage({ type: 'failed', id: task.id, error: text, cpuMs: cpu() } satisfies ThreadReply)
    }
  })
})
