import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { request } from '../helpers/https-client.js'
import { type ServiceProcess, spawnService } from '../helpers/service-process.js'

// Issue 31: the service's memory settings (docs/operations.md, "Memory") are set by the one
// script every start goes through, bin/diagnostic-service: `npm start`, the systemd unit, the
// benchmarks and these tests' services (spawnService).

const running: ServiceProcess[] = []
afterEach(() => {
  for (const service of running.splice(0)) service.child.kill('SIGKILL')
})

/** A started service's environment, as the kernel holds it. */
const environOf = (pid: number) =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  )

async function started(env: Record<string, string> = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'diag-start-'))
  const service = spawnService({ DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_LOG_LEVEL: 'warn', ...env }, cwd)
  running.push(service)
  const url = await service.ready
  const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
  return { service, url, ca, pid: service.child.pid as number }
}

describe('the start script', () => {
  it("runs the service's node with a bounded young generation and glibc returning large buffers", async () => {
    const { url, ca, pid } = await started()
    // exec: the script's process is the service's, so a signal from systemd reaches node.
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    expect(argv).toContain('--max-semi-space-size=8')
    expect(argv).toContain('--expose-gc')
    expect(argv.at(-1)).toBe(join(packageRoot, 'dist', 'src', 'server.js'))
    expect(environOf(pid).MALLOC_MMAP_THRESHOLD_).toBe('131072')
    // The main isolate's young generation, as its own V8 counts it: two semi-spaces of 8 MiB at most.
    const metrics = (await request(`${url}/metrics`, { ca })).text
    const young = Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(metrics)?.[1])
    expect(young).toBeGreaterThan(0)
    expect(young).toBeLessThanOrEqual(16 * 1024 * 1024)
  })

  it('retires the idle analysis thread and collects the main isolate once, idle', async () => {
    const { service, url, ca } = await started({
      DIAG_ANALYSIS_THREADS: '1',
      DIAG_ANALYSIS_IDLE_SECONDS: '1',
      DIAG_LOG_LEVEL: 'info',
    })
    const retired = () => service.logLines().find((line) => line.msg === 'idle: analysis threads retired')
    for (let polls = 0; !retired(); polls++) {
      expect(polls, 'the retirement log line').toBeLessThan(600)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(retired()?.collected).toBe(true)
    expect(retired()?.collectedMs).toEqual(expect.any(Number))
    const metrics = (await request(`${url}/metrics`, { ca })).text
    expect(metrics).toMatch(/^diagnostic_analysis_threads 0$/m)
  })

  it('collects every isolate once a quiet stretch has passed, its thread still running, however often it is probed', async () => {
    const { service, url, ca } = await started({
      DIAG_ANALYSIS_THREADS: '1',
      DIAG_ANALYSIS_QUIET_SECONDS: '1',
      DIAG_ANALYSIS_IDLE_SECONDS: '0',
      DIAG_LOG_LEVEL: 'info',
    })
    // Ready, so its thread runs: a request (refused, it carries no token) starts a quiet stretch.
    expect((await request(`${url}/api/v1/rules`, { ca })).status).toBe(401)
    const quiet = () => service.logLines().filter((line) => line.msg === 'quiet: memory collected')
    const metrics = async () => (await request(`${url}/metrics`, { ca })).text
    // Scraped ten times a second meanwhile: a probe or a scrape does not end a quiet stretch.
    for (let polls = 0; !quiet().some((line) => line.threads === 1); polls++) {
      expect(polls, 'the quiet collection log line').toBeLessThan(200)
      await metrics()
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const collected = quiet().find((line) => line.threads === 1)
    expect(collected?.collectedMs).toEqual(expect.any(Number))
    // The exposition is rendered at most once a second (health.ts): the count shows up to a second later.
    const counted = (text: string) =>
      Number(/^diagnostic_memory_collections_total\{step="quiet"\} (\d+)$/m.exec(text)?.[1])
    let text = await metrics()
    for (let polls = 0; counted(text) < quiet().length; polls++) {
      expect(polls, 'the quiet collections counted').toBeLessThan(100)
      await new Promise((resolve) => setTimeout(resolve, 100))
      text = await metrics()
    }
    expect(counted(text)).toBe(quiet().length)
    expect(text).toMatch(/^diagnostic_memory_collections_total\{step="retired"\} 0$/m)
    expect(text).toMatch(/^diagnostic_analysis_threads 1$/m)
  })

  it("keeps an operator's own glibc setting", async () => {
    const { pid } = await started({ MALLOC_MMAP_THRESHOLD_: '262144' })
    expect(environOf(pid).MALLOC_MMAP_THRESHOLD_).toBe('262144')
  })

  it('is what `npm start` and the systemd unit run', () => {
    const scripts = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >
    expect(scripts.start).toBe('bin/diagnostic-service')
    const unit = readFileSync(join(packageRoot, 'examples', 'deploy', 'diagnostic-service.service'), 'utf8')
    expect(unit).toMatch(/^ExecStart=\/opt\/diagnostic-service\/bin\/diagnostic-service$/m)
  })
})
