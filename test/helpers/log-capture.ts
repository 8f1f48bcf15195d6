import { Writable } from 'node:stream'
import { createLogger, type Logger } from '../../src/logging.js'
import { waitFor } from './smtp.js'

export type LogLine = Record<string, unknown> & { level: number; msg: string }

/** pino's numbers for the levels a test asks about. */
export const levels = { debug: 20, info: 30, warn: 40, error: 50 } as const

/**
 * The service's own logger (src/logging.ts), writing its JSON lines into memory instead of
 * stdout: what an in-process test reads to check a log line.
 */
export function capturedLog(level = 'info') {
  const lines: LogLine[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine)
      done()
    },
  })
  const logger: Logger = createLogger(level, stream)
  return {
    logger,
    lines,
    /** The lines whose message is `msg` (or matches it). */
    named: (msg: string | RegExp) => lines.filter((l) => (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg))),
    /** Waits for the first line `match` accepts, and returns it. */
    waitFor: (match: (line: LogLine) => boolean, what: string, timeoutMs = 10_000) =>
      waitFor(() => lines.find(match), timeoutMs, what),
  }
}
