// The service's real process for a benchmark, started as `npm start` starts it
// (bin/diagnostic-service), in a folder of its own on loopback, resolved with its URL once
// it says it is ready.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packageRoot, pathWithThisNode, startScript } from '../src/paths.js'

export async function startBenchService(
  token: string,
  env: Record<string, string>,
  dir = mkdtempSync(join(tmpdir(), 'bench-service-')),
): Promise<{ child: ChildProcess; url: string; dir: string }> {
  // BENCH_NODE_ARGS passes flags to the service, e.g. --cpu-prof to profile it.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(startScript, nodeArgs, {
    cwd: dir,
    env: {
      ...process.env,
      PATH: pathWithThisNode(),
      DIAG_PORT: '0',
      DIAG_HOST: '127.0.0.1',
      DIAG_API_TOKEN: token,
      DIAG_LOG_LEVEL: 'warn',
      DIAG_RATE_LIMIT_PER_MINUTE: '0',
      DIAG_QUEUE_CAPACITY: '1000000',
      DIAG_INVENTORY: join(packageRoot, 'examples', 'inventory.json'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /ready on (https:\/\/[^\s"]+)/.exec(out)
      if (match?.[1]) resolve(match[1])
    })
    child.on('exit', (code) => reject(new Error(`service exited with ${code}: ${out.slice(-2000)}`)))
  })
  return { child, url, dir }
}

/**
 * The runtime settings the start script gives the service (its V8 flags and glibc's malloc
 * threshold), read from the script itself, so that a baseline runs under the same ones.
 */
function startScriptSettings(): { nodeArgs: string[]; env: Record<string, string> } {
  const script = readFileSync(startScript, 'utf8')
  const nodeArgs = [...script.matchAll(/ (--max-[a-z-]+=\d+)/g)].map((m) => m[1] as string)
  const env = Object.fromEntries([...script.matchAll(/\$\{(MALLOC_[A-Z_]+):=(\d+)\}/g)].map((m) => [m[1], m[2]]))
  if (nodeArgs.length === 0 || Object.keys(env).length === 0) {
    throw new Error(`${startScript}: its node flags or malloc settings were not found; update startScriptSettings`)
  }
  return { nodeArgs, env: env as Record<string, string> }
}

/**
 * The baseline server (bench/bare-server.ts) with the service's certificate and key from
 * `tlsDir`, resolved with its URL once it listens; under the service's runtime settings
 * (bin/diagnostic-service), so that a ratio measures the service's work and not a setting;
 * BENCH_NODE_ARGS as for the service.
 */
export async function startBareServer(tlsDir: string): Promise<{ child: ChildProcess; url: string }> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const settings = startScriptSettings()
  const child = spawn(
    process.execPath,
    [
      ...settings.nodeArgs,
      ...nodeArgs,
      join(packageRoot, 'dist', 'bench', 'bare-server.js'),
      join(tlsDir, 'server.pem'),
      join(tlsDir, 'server-key.pem'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...settings.env, ...process.env } },
  )
  const port = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (\d+)/.exec(out)
      if (match?.[1]) resolve(match[1])
    })
    child.on('exit', (code) => reject(new Error(`bare server exited with ${code}: ${out}`)))
  })
  return { child, url: `https://127.0.0.1:${port}` }
}
