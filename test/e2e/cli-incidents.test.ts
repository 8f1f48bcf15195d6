import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { cleanEnv, spawnService } from '../helpers/service-process.js'
import { waitFor } from '../helpers/smtp.js'

// `appserver-diag incidents list|show` against the real service process, as an SRE and a
// script run it: the bin itself, and through npm run --silent.

const run = promisify(execFile)
const token = 'cli-incidents-token-001'
const diag = join(packageRoot, 'dist', 'src', 'cli', 'diag.js')
const dir = mkdtempSync(join(tmpdir(), 'diag-cli-incidents-'))
// No config file of the user running the tests is ever read: ~/.config is this empty folder.
const noUserConfig = { XDG_CONFIG_HOME: join(dir, 'no-config') }

async function exec(file: string, args: string[], env: Record<string, string>, cwd?: string) {
  try {
    const { stdout, stderr } = await run(file, args, { env: cleanEnv({ ...noUserConfig, ...env }), cwd })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failure = error as { code: number | string; stdout: string; stderr: string }
    if (typeof failure.code === 'string') throw new Error(`${file} could not run: ${failure.code}`)
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr }
  }
}

const cli = (args: string[], env: Record<string, string> = {}) => exec(process.execPath, [diag, ...args], env, dir)

interface Listed {
  incidents: Array<{ id: string; instance: string; diagnosis: { branch: string } | null }>
  nextCursor: string | null
}

describe('appserver-diag incidents (the incidents API from the command line)', () => {
  let service: ReturnType<typeof spawnService>
  let url: string
  let ca: string
  let connection: string[]
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    service = spawnService(
      { DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKEN: token, DIAG_LOG_LEVEL: 'warn' },
      dir,
    )
    url = await service.ready
    ca = join(dir, 'data', 'tls', 'ca.pem')
    connection = ['--url', url, '--token', token, '--ca', ca]
    const payload = webhook([
      alert({ id: 'cli-inc-1', startsAt: '2026-11-22T04:56:00.000Z' }),
      alert({ id: 'cli-inc-2', startsAt: '2026-11-22T04:57:00.000Z' }, { appserver_instance: 'app-02' }),
    ])
    const accepted = await request(`${url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(ca),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    })
    expect(accepted.status).toBe(202)
    // Both diagnosed: the list shows a diagnosis headline for each.
    const listed = await waitFor(
      async () => {
        const { stdout } = await cli(['incidents', 'list', '--json', ...connection])
        const body = JSON.parse(stdout) as Listed
        return body.incidents.length === 2 && body.incidents.every((i) => i.diagnosis) && body
      },
      30_000,
      'two diagnosed incidents',
    )
    for (const incident of listed.incidents) ids[incident.instance] = incident.id
  })
  afterAll(() => service.child.kill('SIGKILL'))

  it('lists incidents as a table, and as the API answers with --json, -o json or --output json', async () => {
    const text = await cli(['incidents', 'list', ...connection])
    expect(text.code).toBe(0)
    const [header, ...rows] = text.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^ID\s+STATUS\s+OPENED\s+SEVERITY\s+ALERTNAME\s+INSTANCE\s+DIAGNOSIS$/)
    expect(rows).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^${ids['app-01']}\\s+open\\s+\\S+Z\\s+critical\\s+AppServerDown\\s+app-01\\s+TD-02 JavaHeapExhausted`,
        ),
      ),
    )
    expect(rows.at(-1)).toBe('2 incidents')

    for (const flag of [['--json'], ['-o', 'json'], ['--output', 'json'], ['-ojson'], ['--output=json']]) {
      const json = await cli(['incidents', 'list', ...flag, ...connection])
      expect(json.code).toBe(0)
      const body = JSON.parse(json.stdout) as Listed
      expect(body.incidents.map((i) => i.id).sort()).toEqual([ids['app-01'], ids['app-02']].sort())
      expect(body.nextCursor).toBeNull()
    }
    const wrong = await cli(['incidents', 'list', '-o', 'yaml', ...connection])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--output (-o) must be json or text, not yaml')
    expect(wrong.stdout).toBe('')
  })

  it('filters as the API does, and pages with --limit and --cursor', async () => {
    const only = JSON.parse((await cli(['incidents', 'list', '--instance', 'app-02', '--json', ...connection])).stdout)
    expect(only.incidents.map((i: { id: string }) => i.id)).toEqual([ids['app-02']])
    const none = JSON.parse(
      (await cli(['incidents', 'list', '--status', 'resolved', '-o', 'json', ...connection])).stdout,
    )
    expect(none.incidents).toEqual([])
    const since = await cli([
      'incidents',
      'list',
      '--since',
      '2099-01-01T00:00:00Z',
      '--category',
      'jvm_memory',
      '--json',
      ...connection,
    ])
    expect(JSON.parse(since.stdout).incidents).toEqual([])

    const first = JSON.parse((await cli(['incidents', 'list', '--limit', '1', '--json', ...connection])).stdout)
    expect(first.incidents).toHaveLength(1)
    expect(first.nextCursor).toEqual(expect.any(String))
    const firstText = await cli(['incidents', 'list', '--limit', '1', ...connection])
    expect(firstText.stdout).toContain(`more match: the same command with --cursor ${first.nextCursor}`)
    const rest = JSON.parse(
      (await cli(['incidents', 'list', '--limit', '1', '--cursor', first.nextCursor, '--json', ...connection])).stdout,
    )
    expect([...first.incidents, ...rest.incidents].map((i: { id: string }) => i.id).sort()).toEqual(
      [ids['app-01'], ids['app-02']].sort(),
    )
    expect(rest.nextCursor).toBeNull()
  })

  it('refuses a bad filter in words before asking the service, exit 2', async () => {
    for (const [flag, value, words] of [
      ['--status', 'closed', '--status must be one of: open, resolved, superseded'],
      ['--category', 'memory', '--category must be one of: jvm_memory, concurrency_threading'],
      ['--since', 'yesterday', '--since must be an RFC 3339 date and time'],
      ['--limit', '0', '--limit must be a whole number from 1'],
    ] as const) {
      const result = await cli(['incidents', 'list', flag, value, ...connection])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(words)
      expect(result.stdout).toBe('')
    }
  })

  it('shows one incident: the diagnosis, the matched line, the evidence, the events and the mails', async () => {
    const shown = await cli(['incidents', 'show', ids['app-01'] as string, ...connection])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain(`Incident:   ${ids['app-01']} (open)`)
    expect(shown.stdout).toMatch(
      /^Diagnosis: {2}TD-02 JavaHeapExhausted \(jvm_memory, probable_cause \/ medium\) \[built-in rule builtin-TD-02\]$/m,
    )
    expect(shown.stdout).toMatch(/^Confidence: its signature alone/m)
    expect(shown.stdout).toMatch(/^ {2}>> \d+: .*java\.lang\.OutOfMemoryError: Java heap space/m)
    expect(shown.stdout).toMatch(/^ {2}log \S+catalina\.out: \d+ lines, \d+ bytes/m)
    expect(shown.stdout).toMatch(/^ {2}\S+Z {2}firing {2}opened {2}\S+$/m)
    expect(shown.stdout).toMatch(/^ {2}diagnosis (?:sent|pending) /m)

    const json = await cli(['incidents', 'show', ids['app-01'] as string, '-o', 'json', ...connection])
    const body = JSON.parse(json.stdout)
    expect(body).toMatchObject({ id: ids['app-01'], status: 'open', diagnosis: { primary: { branch: 'TD-02' } } })
    expect(body.events).toHaveLength(1)

    const missing = await cli(['incidents', 'show', '00000000-0000-7000-8000-000000000000', ...connection])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^FAILED 404 not_found/m)
    const usage = await cli(['incidents', 'show', ...connection])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('which incident?')
  })

  it('prints clean JSON through npm run --silent: npm writes no banner into stdout', async () => {
    const npm = await exec(
      'npm',
      ['run', '--silent', 'diag', '--', 'incidents', 'list', '--json', ...connection],
      {},
      packageRoot,
    )
    expect(npm.code, npm.stderr).toBe(0)
    expect((JSON.parse(npm.stdout) as Listed).incidents).toHaveLength(2)
  })

  describe('connection settings: flags, then environment, then the config file', () => {
    const tokenFile = join(dir, 'config', 'token')
    const config = (settings: Record<string, unknown>, name = 'config.json') => {
      mkdirSync(join(dir, 'config'), { recursive: true })
      const file = join(dir, 'config', name)
      writeFileSync(file, JSON.stringify(settings))
      return file
    }
    beforeAll(() => {
      config({})
      writeFileSync(tokenFile, `${token}\n`)
    })
    const listCount = async (args: string[], env: Record<string, string>) => {
      const result = await cli(['incidents', 'list', '--json', ...args], env)
      expect(result.code, result.stderr).toBe(0)
      return (JSON.parse(result.stdout) as Listed).incidents.length
    }

    it('reads url, tokenFile and caFile from DIAG_CLI_CONFIG, with paths relative to the file', async () => {
      const file = config({ url, tokenFile: 'token', caFile: ca })
      expect(await listCount([], { DIAG_CLI_CONFIG: file })).toBe(2)
      expect(await listCount(['--config', file], {})).toBe(2)
    })

    it('reads ~/.config/appserver-diag/config.json ($XDG_CONFIG_HOME) when nothing names one', async () => {
      const home = join(dir, 'xdg')
      mkdirSync(join(home, 'appserver-diag'), { recursive: true })
      writeFileSync(join(home, 'appserver-diag', 'config.json'), JSON.stringify({ url, tokenFile, caFile: ca }))
      expect(await listCount([], { XDG_CONFIG_HOME: home })).toBe(2)
    })

    it('takes the environment over the file, and flags over both', async () => {
      const file = config({ url: 'https://127.0.0.1:9', tokenFile: 'token', caFile: ca }, 'wrong-url.json')
      expect(await listCount([], { DIAG_CLI_CONFIG: file, DIAG_CLI_URL: url })).toBe(2)
      expect(await listCount(['--url', url], { DIAG_CLI_CONFIG: file, DIAG_CLI_URL: 'https://127.0.0.1:9' })).toBe(2)
      const wrongToken = { DIAG_CLI_CONFIG: config({ url, caFile: ca }), DIAG_CLI_TOKEN: 'wrong-token-000000000' }
      expect((await cli(['incidents', 'list', ...connection.slice(0, 2)], wrongToken)).stderr).toContain(
        'FAILED 401 unauthorized',
      )
      expect(await listCount(['--token-file', tokenFile], wrongToken)).toBe(2)
      expect(await listCount([], { ...wrongToken, DIAG_CLI_TOKEN: '', DIAG_CLI_TOKEN_FILE: tokenFile })).toBe(2)
    })

    it('explains a config file the schema refuses in words, and a named file that is missing', async () => {
      const bad = config({ url: 'http://diag.example.internal:8443', token: 'x' }, 'bad.json')
      const result = await cli(['incidents', 'list'], { DIAG_CLI_CONFIG: bad })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`config file ${bad}:`)
      expect(result.stderr).toContain('url "http://diag.example.internal:8443" must be an https:// URL')
      expect(result.stderr).toContain('token is not a field of the config file')
      const missing = await cli(['incidents', 'list'], { DIAG_CLI_CONFIG: join(dir, 'nowhere.json') })
      expect(missing.stderr).toContain(`config file not found: ${join(dir, 'nowhere.json')}`)
    })
  })
})
