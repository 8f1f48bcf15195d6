// The body of an analysis thread (see analysis-pool.ts): reads, redacts and scans logs and
// runs the rules off the main thread, on one live engine built from the first message; it
// says 'ready' once that engine and its scanner are built.
import { parentPort } from 'node:worker_threads'
import { analyzeLogs } from '../../evidence/log-analysis.js'
import { redactLine, secretMarkers } from '../../evidence/redact.js'
import { loadBuiltinRules } from '../../rules/builtin-loader.js'
import { DiagnosisEngine } from '../../rules/diagnosis-engine.js'
import { ownThreadId } from './thread-cpu.js'
import type { ThreadReply, ThreadRequest } from './thread-protocol.js'

let engine: DiagnosisEngine | undefined
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
    port.postMessage({ type: 'ready', tid: ownThreadId() } satisfies ThreadReply)
    return
  }
  if (message.type === 'addRule') {
    live().addCustomRule(message.rule)
    return
  }
  const reply = (value: ThreadReply) => port.postMessage(value)
  const failed = (error: unknown) =>
    reply({ type: 'failed', id: message.id, error: error instanceof Error ? error.message : String(error) })
  try {
    if (message.type === 'analyze') {
      const analysis = analyzeLogs(message.files, message.roots, (raw, markers, rewrite) =>
        live().scanRewriting(raw, markers, rewrite),
      )
      reply({ type: 'done', id: message.id, value: analysis })
      return
    }
    live()
      .diagnose(message.evidence)
      .then((diagnosis) => reply({ type: 'done', id: message.id, value: diagnosis }), failed)
  } catch (error) {
    failed(error)
  }
})
