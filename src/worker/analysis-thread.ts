// The body of an analysis thread (see analysis-pool.ts): reads, redacts and matches logs
// off the main thread. Messages on a port arrive in order, so a task always finds the
// catalogue version it was sent with.
import { parentPort } from 'node:worker_threads'
import { analyzeLogs } from '../evidence/log-analysis.js'
import { secretMarkers } from '../evidence/redact.js'
import { PatternIndex } from '../rules/pattern-index.js'
import type { ThreadReply, ThreadRequest } from './analysis-pool.js'

let index = PatternIndex.fromSources([], secretMarkers)
const port = parentPort
if (!port) throw new Error('analysis-thread.js runs as a worker thread')

port.on('message', (message: ThreadRequest) => {
  if (message.type === 'catalogue') {
    index = PatternIndex.fromSources(message.sources, secretMarkers)
    return
  }
  let reply: ThreadReply
  try {
    const analysis = analyzeLogs(message.files, message.roots, (raw, _markers, rewrite) =>
      index.scanRewriting(raw, rewrite),
    )
    reply = { type: 'done', id: message.id, analysis }
  } catch (error) {
    reply = { type: 'failed', id: message.id, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
port.postMessage({ type: 'ready' } satisfies ThreadReply)
