import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stableReport } from '../../src/cli/demo/readme-sections.js'
import { packageRoot } from '../../src/paths.js'
import { request } from '../helpers/https-client.js'
import { cleanEnv, type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { parseMail } from '../helpers/smtp.js'

const demo = join(packageRoot, 'dist', 'src', 'cli', 'demo.js')
const readme = join(packageRoot, 'README.md')

/** The text between README's `<!-- demo:<name> -->` markers. */
const section = (text: string, name: string) =>
  text.slice(text.indexOf(`<!-- demo:${name} -->`), text.indexOf(`<!-- /demo:${name} -->`))

type DemoRun = { code: number; stdout: string; stderr: string }

async function runDemo(args: string[], env: Record<string, string>, cwd: string): Promise<DemoRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [demo, ...args], {
      cwd,
      env: cleanEnv(env),
      timeout: 150_000,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('npm run demo', () => {
  // What `npm start` runs meanwhile, with the shell's DIAG_* settings for it.
  let running: ServiceProcess & { ready: Promise<string> }
  let shell: Record<string, string>
  const cwd = mkdtempSync(join(tmpdir(), 'diag-demo-'))
  beforeAll(async () => {
    shell = {
      DIAG_HOST: '127.0.0.1',
      DIAG_PORT: '0',
      DIAG_DATA_DIR: join(cwd, 'data'),
      DIAG_API_TOKEN: 'npm-start-token-0123456789',
      DIAG_LOG_LEVEL: 'warn',
    }
    running = spawnService(shell, cwd)
    shell.DIAG_PORT = new URL(await running.ready).port
  })
  afterAll(async () => {
    running.child.kill('SIGTERM')
    await running.exited
  })

  it('runs beside npm start, shows corroborated findings, runtime evidence and a probe, and keeps README equal to a real run', async () => {
    const readmeCopy = join(cwd, 'README.md')
    copyFileSync(readme, readmeCopy)
    const data = join(cwd, 'demo-data')
    const startedAt = Date.now()
    const run = await runDemo(['--data-dir', data, '--readme', readmeCopy], shell, cwd)
    const endedAt = Date.now()
    expect(run.code, run.stderr).toBe(0)
    // A failing probe corroborates every log signature; app-02's container was OOM-killed.
    expect(run.stdout).toMatch(/^app-01\s+resolved\s+TD-02\s+JavaHeapExhausted\s+jvm_memory\s+high$/m)
    expect(run.stdout).toMatch(/^app-02\s+open\s+AH-01\s+ContainerOomKilled\s+jvm_memory\s+high$/m)
    expect(run.stdout).toMatch(/^app-03\s+open\s+TD-09\s+JdbcPoolExhausted\s+database_persistence\s+high$/m)
    expect(run.stdout).toMatch(/^app-04\s+open\s+TD-13\s+DownstreamReadTimeout\s+network_integration\s+high$/m)
    expect(run.stdout).toMatch(/service ready on https:\/\/127\.0\.0\.1:\d+ /)
    expect(run.stdout).not.toContain(`:${shell.DIAG_PORT} `)

    const outbox = join(data, 'outbox')
    const files = readdirSync(outbox)
    expect(files.filter((f) => f.endsWith('-diagnosis.eml'))).toHaveLength(4)
    expect(files.filter((f) => f.endsWith('-recovery.eml'))).toHaveLength(1)
    expect(run.stdout).toContain(outbox)

    // app-01's report, as a real MIME parser reads it: evidence from each of its sources.
    const reports = await Promise.all(
      files
        .filter((f) => f.endsWith('-diagnosis.eml'))
        .map(async (f) => parseMail(readFileSync(join(outbox, f), 'utf8'))),
    )
    const app01 = reports.find((mail) => mail.subject.includes(' on app-01:'))
    expect(app01?.text).toContain('TD-02 JavaHeapExhausted (jvm_memory): confirmed_cause, high confidence')
    expect(app01?.text).toMatch(/^Metrics: heap used 1,946 MiB of 2,048 MiB \(95 %\), 212 live threads, /m)
    expect(app01?.text).toMatch(/^Health probe: http_error \(HTTP 503\)/m)

    // README's sections are what this run wrote, and that is app-01's report as mailparser reads it.
    const written = readFileSync(readmeCopy, 'utf8')
    for (const name of ['table', 'report']) {
      expect(
        section(readFileSync(readme, 'utf8'), name),
        `README's demo ${name} differs from a real run: run \`npm run demo -- --readme README.md\``,
      ).toBe(section(written, name))
    }
    const inventory = JSON.parse(readFileSync(join(data, 'demo-inventory.json'), 'utf8'))
    const endpointsBase = new URL(inventory.instances['app-01'].healthUrl).origin
    const expected = stableReport(`Subject: ${app01?.subject}\n\n${app01?.text}`, {
      packageRoot,
      endpointsBase,
      startedAt,
      endedAt,
    })
    expect(section(written, 'report')).toBe(`<!-- demo:report -->\n\`\`\`text\n${expected.trimEnd()}\n\`\`\`\n`)

    // The service of npm start received nothing and still runs.
    const ca = readFileSync(join(shell.DIAG_DATA_DIR as string, 'tls', 'ca.pem'))
    const incidents = await request(`${running.url}/api/v1/incidents`, {
      ca,
      headers: { authorization: `Bearer ${shell.DIAG_API_TOKEN}` },
    })
    expect(incidents.status).toBe(200)
    expect(incidents.json()).toMatchObject({ incidents: [] })
  }, 180_000)

  it("shows the service's log when the service cannot start", async () => {
    // The port npm start's service holds.
    const run = await runDemo(['--port', shell.DIAG_PORT as string], shell, cwd)
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^demo: the service exited \(code 1\) before it was ready$/m)
    expect(run.stderr).toMatch(/^the service's log \(the last \d+ lines; all of it in .*service\.log\):$/m)
    // The service's own fatal line, made readable.
    expect(run.stderr).toMatch(/FATAL.*failed to start: .*EADDRINUSE/)
  }, 120_000)
})
