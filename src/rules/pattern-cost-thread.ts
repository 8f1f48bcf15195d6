// The body of the thread that measures what a regular expression may cost (pattern-cost.ts)
// off the event loop: a few scans of 512 KiB, timed in this thread's own CPU time.
import { parentPort } from 'node:worker_threads'
import { worstScanCpuMs } from './pattern-cost.js'

const port = parentPort
if (!port) throw new Error('pattern-cost-thread.js runs as a worker thread')

port.on('message', ({ id, source, flags }: { id: number; source: string; flags: string }) => {
  try {
    port.postMessage({ id, ms: worstScanCpuMs(source, flags) })
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
