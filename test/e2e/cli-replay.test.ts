import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { exportRunawayRule } from '../helpers/rule-input.js'
import { cleanEnv, spawnService } from '../helpers/service-process.js'
import { waitFor } from '../helpers/smtp.js'

// `appserver-diag rules replay` against the real service process, whose replay runs on a
// thread of its own (the process has analysis threads): the diff as words and as --json.

const run = promisify(execFile)
const token = 'cli-replay-token-000001'
const diag = join(packageRoot, 'dist', 'src', 'cli', 'diag.js')
const dir = mkdtempSync(join(tmpdir(), 'diag-cli-replay-'))
const noUserConfig = { XDG_CONFIG_HOME: join(dir, 'no-config') }

async function cli(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [diag, ...args], { env: cleanEnv(noUserConfig), cwd: dir })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string }
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr }
  }
}

const candidate = exportRunawayRule

describe('appserver-diag rules replay', () => {
  let service: ReturnType<typeof spawnService>
  let connection: string[]
  let incident: string
  beforeAll(async () => {
    service = spawnService(
      { DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKEN: token, DIAG_LOG_LEVEL: 'warn' },
      dir,
    )
    const url = await service.ready
    const ca = join(dir, 'data', 'tls', 'ca.pem')
    connection = ['--url', url, '--token', token, '--ca', ca]
    const post = (path: string) =>
      request(`${url}${path}`, { method: 'GET', ca: readFileSync(ca), headers: { authorization: `Bearer ${token}` } })
    const accepted = await request(`${url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(ca),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        webhook([alert({ id: 'replayed' }), alert({ id: 'other' }, { appserver_instance: 'app-02' })]),
      ),
    })
    expect(accepted.status).toBe(202)
    const listed = await waitFor(
      async () => {
        const body = (await post('/api/v1/incidents')).json() as {
          incidents: Array<{ id: string; instance: string; diagnosis: unknown }>
        }
        return body.incidents.length === 2 && body.incidents.every((i) => i.diagnosis) && body
      },
      30_000,
      'two diagnosed incidents',
    )
    incident = listed.incidents.find((i) => i.instance === 'app-01')?.id as string
    writeFileSync(join(dir, 'candidate.json'), JSON.stringify(candidate))
  })
  afterAll(() => service.child.kill('SIGKILL'))

  it('prints what would change, and the API answer with --json', async () => {
    const text = await cli(['rules', 'replay', 'candidate.json', ...connection])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^replayed on 2 of the last 1000 diagnosed events/m)
    expect(text.stdout).toContain('RP-01 ReportExportRunaway: matched 1 events')
    expect(text.stdout).toContain('1 would change, 0 would only get another finding, 1 unchanged')
    expect(text.stdout).toMatch(
      new RegExp(
        `${incident}\\s+AppServerDown\\s+app-01\\s+TD-02 JavaHeapExhausted \\(probable_cause/medium\\) -> RP-01 ReportExportRunaway`,
      ),
    )

    const json = await cli(['rules', 'replay', 'candidate.json', '--last', '1', '--json', ...connection])
    expect(json.code).toBe(0)
    const body = JSON.parse(json.stdout)
    expect(body).toMatchObject({ requested: 1, evaluated: 1, unreadable: 0 })
    const both = JSON.parse((await cli(['rules', 'replay', 'candidate.json', '-o', 'json', ...connection])).stdout)
    expect(both.changed).toEqual([
      expect.objectContaining({ incidentId: incident, before: expect.objectContaining({ branch: 'TD-02' }) }),
    ])
    // Nothing was registered.
    const list = await cli(['rules', 'list', '--json', ...connection])
    expect(JSON.parse(list.stdout).rules.map((r: { branch: string }) => r.branch)).not.toContain('RP-01')
  })

  it('says why a candidate is refused, exit 1; a bad --last is a usage error, exit 2', async () => {
    writeFileSync(join(dir, 'unsafe.json'), JSON.stringify({ ...candidate, pattern: '/(a+)+$/' }))
    const refused = await cli(['rules', 'replay', 'unsafe.json', ...connection])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^FAILED 400 unsafe_regex_pattern/m)
    const usage = await cli(['rules', 'replay', 'candidate.json', '--last', '0', ...connection])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--last must be a whole number from 1 to 5000')
  })
})
