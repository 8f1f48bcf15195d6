import { type ChildProcess, spawn } from 'node:child_process'
import { packageRoot, pathWithThisNode, startScript } from '../../src/paths.js'

export interface ServiceProcess {
  child: ChildProcess
  url: string
  stdout: () => string
  stderr: () => string
  /** stdout as the service's parsed log lines. */
  logLines: () => Array<Record<string, unknown>>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** The environment of a spawned service: the parent's, minus every DIAG_* variable. */
export function cleanEnv(env: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key, value]) => !key.startsWith('DIAG_') && value !== undefined),
  ) as Record<string, string>
  return { ...base, ...env }
}

/** The environment of a service on a free loopback port with one token, plus `env`. */
export function loopbackEnv(token: string, env: Record<string, string> = {}): Record<string, string> {
  return { DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKEN: token, DIAG_LOG_LEVEL: 'warn', ...env }
}

/**
 * Spawns the built service as `npm start` and the systemd unit run it: bin/diagnostic-service,
 * which starts dist/src/server.js with its memory settings, on the node running the tests.
 */
export function spawnService(
  env: Record<string, string>,
  cwd = packageRoot,
): ServiceProcess & { ready: Promise<string> } {
  const environment = cleanEnv(env)
  const child = spawn(startScript, [], {
    cwd,
    env: { ...environment, PATH: pathWithThisNode(environment.PATH) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString()
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service not ready in 30 s:\n${out}\n${err}`)), 30_000)
    const onData = () => {
      const url = readyUrl(out)
      if (url) {
        clearTimeout(timer)
        resolve(url)
      }
    }
    child.stdout?.on('data', onData)
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      reject(new Error(`service exited (${code ?? signal}) before ready:\n${out}\n${err}`))
    })
  })
  ready.catch(() => {})
  return {
    child,
    get url() {
      return readyUrl(out) ?? ''
    },
    stdout: () => out,
    logLines: () => logLines(out),
    stderr: () => err,
    exited,
    ready,
  }
}

/** The service's log (pino JSON lines on stdout), parsed; a line that is not JSON is skipped. */
export function logLines(out: string): Array<Record<string, unknown>> {
  return out.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return []
    try {
      return [JSON.parse(line) as Record<string, unknown>]
    } catch {
      return [] // a line still being written
    }
  })
}

/** The URL of the log line that says the service is ready. */
function readyUrl(out: string): string | undefined {
  const line = logLines(out).find((l) => typeof l.msg === 'string' && l.msg.startsWith('ready on '))
  return line?.url as string | undefined
}
