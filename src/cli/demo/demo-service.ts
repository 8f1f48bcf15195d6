import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { prettyFactory } from 'pino-pretty'
import { packageRoot } from '../../paths.js'

/** The service the demo runs, and its log kept for when something fails. */
export interface DemoService {
  /** The service's https URL once it logs "ready on"; rejects if it ends or fails first. */
  ready: Promise<string>
  /** The last lines of the service's log, made readable (pino-pretty, no colours). */
  lastLines(count?: number): string[]
  stop(): Promise<void>
}

const keptLines = 200
const pretty = prettyFactory({ colorize: false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' })

/**
 * Starts the service (dist/src/server.js) with `env`, its whole log (stdout and stderr)
 * written to `logFile` and its last lines kept in memory.
 */
export function startDemoService(env: NodeJS.ProcessEnv, logFile: string): DemoService {
  const child = spawn(process.execPath, [join(packageRoot, 'dist', 'src', 'server.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const log = createWriteStream(logFile, { mode: 0o600 })
  const lines: string[] = []
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const ready = new Promise<string>((resolve, reject) => {
    const read = (line: string) => {
      log.write(`${line}\n`)
      lines.push(line)
      if (lines.length > keptLines) lines.shift()
      const url = readyUrl(line)
      if (url) resolve(url)
    }
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', read)
    // After its output is read to the end, so that the log shows why.
    child.once('close', (code, signal) =>
      reject(new Error(`the service exited (${signal ?? `code ${code}`}) before it was ready`)),
    )
    child.once('error', (error) => reject(new Error(`the service could not be started: ${error.message}`)))
  })
  // A failure before anyone awaits it is still reported where it is awaited.
  ready.catch(() => {})
  return {
    ready,
    lastLines: (count = 30) =>
      lines.slice(-count).map((line) => (line.startsWith('{') ? pretty(line).trimEnd() : line)),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
      await new Promise<void>((resolve) => log.end(resolve))
    },
  }
}

/** The URL of the service's "ready on" line (server.ts), if this line is it. */
function readyUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; url?: unknown }
    return typeof entry.msg === 'string' && entry.msg.startsWith('ready on ') && typeof entry.url === 'string'
      ? entry.url
      : undefined
  } catch {
    return undefined
  }
}
