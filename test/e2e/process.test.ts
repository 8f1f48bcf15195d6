import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { request as rawRequest } from 'node:https'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { waitFor } from '../helpers/smtp.js'

const running: ServiceProcess[] = []
afterEach(() => {
  for (const service of running.splice(0)) service.child.kill('SIGKILL')
})

function start(env: Record<string, string>, cwd?: string) {
  const service = spawnService(env, cwd)
  running.push(service)
  return service
}

describe('the service process', () => {
  it('comes up ready on the embedded defaults and reuses its token and CA on restart (D3)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-defaults-'))
    // Only the port differs from a bare `npm start`, so parallel test runs cannot collide.
    const first = start({ DIAG_PORT: '0' }, cwd)
    const url = await first.ready
    expect(url).toMatch(/^https:\/\/localhost:\d+$/)

    const caFile = join(cwd, 'data', 'tls', 'ca.pem')
    const tokenFile = join(cwd, 'data', 'api-token')
    expect(first.stdout()).toContain(`clients trust: ${caFile}`)
    // The listener is HTTPS only: no log line may announce it as http.
    expect(first.stdout()).toContain('Server listening at https://')
    expect(first.stdout()).not.toContain('Server listening at http://')
    const token = readFileSync(tokenFile, 'utf8').trim()
    expect(first.stdout()).toContain(token)
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600)
    expect(statSync(join(cwd, 'data')).mode & 0o777).toBe(0o711)
    expect(statSync(join(cwd, 'data', 'diagnostic.db')).isFile()).toBe(true)

    const ca = readFileSync(caFile)
    expect((await request(`${url}/health/ready`, { ca })).json()).toEqual({ status: 'UP' })
    const accepted = await request(`${url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(webhook([alert({ id: 'defaults01' })])),
    })
    expect(accepted.status).toBe(202)

    first.child.kill('SIGTERM')
    expect(await first.exited).toEqual({ code: 0, signal: null })

    const second = start({ DIAG_PORT: '0' }, cwd)
    const url2 = await second.ready
    expect(second.stdout()).not.toContain(token)
    expect(second.stdout()).not.toContain('generated')
    const again = await request(`${url2}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(caFile),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(webhook([alert({ id: 'defaults01' })])),
    })
    expect(again.json()).toMatchObject({ duplicates: 1 })
  })

  it('keeps every file it writes but the certificates to its own user, also in a data folder made world-readable before', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-modes-'))
    mkdirSync(join(cwd, 'data'), { mode: 0o755 })
    chmodSync(join(cwd, 'data'), 0o755)
    writeFileSync(join(cwd, 'data', 'diagnostic.db'), '', { mode: 0o644 })
    chmodSync(join(cwd, 'data', 'diagnostic.db'), 0o644)
    const service = start({ DIAG_PORT: '0', DIAG_API_TOKEN: 'modes-token-000000001' }, cwd)
    const url = await service.ready
    const accepted = await request(`${url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: readFileSync(join(cwd, 'data', 'tls', 'ca.pem')),
      headers: { authorization: 'Bearer modes-token-000000001', 'content-type': 'application/json' },
      body: JSON.stringify(webhook([alert({ id: 'modes01' })])),
    })
    expect(accepted.status).toBe(202)
    const outbox = join(cwd, 'data', 'outbox')
    await waitFor(() => existsSync(outbox) && readdirSync(outbox).length > 0, 20_000, 'the report file')
    const modes: string[] = []
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        modes.push(`${path.slice(cwd.length)} ${(statSync(path).mode & 0o777).toString(8)}`)
        if (entry.isDirectory()) walk(path)
      }
    }
    walk(join(cwd, 'data'))
    expect(modes.some((m) => m.startsWith('/data/diagnostic.db-wal '))).toBe(true)
    // The certificates are public; others may reach them by name through the folders, never list them.
    expect(modes.filter((m) => !/ (600|700)$/.test(m)).sort()).toEqual([
      '/data/tls 711',
      '/data/tls/ca.pem 644',
      '/data/tls/server.pem 644',
    ])
    expect((statSync(join(cwd, 'data')).mode & 0o777).toString(8)).toBe('711')
  })

  it.each([
    [{ DIAG_PORT: 'https' }, 'DIAG_PORT must be an integer from 0 to 65535 (got "https")'],
    [{ DIAG_LOG_LEVEL: 'loud' }, 'DIAG_LOG_LEVEL must be one of'],
    [{ DIAG_TLS_KEY: '/nonexistent.pem' }, 'DIAG_TLS_CERT and DIAG_TLS_KEY must be set together'],
    [
      // With a token: otherwise the line of the token it generates comes first.
      {
        DIAG_API_TOKEN: 'process-test-token-0001',
        DIAG_TLS_CERT: '/nonexistent/cert.pem',
        DIAG_TLS_KEY: '/nonexistent/key.pem',
      },
      'DIAG_TLS_CERT: cannot read /nonexistent/cert.pem (ENOENT)',
    ],
    [
      { DIAG_TLS_SANS: 'diag.example.org, diag_01' },
      'DIAG_TLS_SANS: "diag_01" is neither a DNS name nor an IP address',
    ],
    [
      { DIAG_API_TOKENS_FILE: '/nonexistent/tokens.json' },
      'DIAG_API_TOKENS_FILE: /nonexistent/tokens.json cannot be read',
    ],
  ])('refuses to start on a bad value with one clear log line and exit code 78: %j', async (env, line) => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-badconfig-'))
    const service = start({ DIAG_PORT: '0', ...env }, cwd)
    expect(await service.exited).toEqual({ code: 78, signal: null })
    const lines = service.logLines()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      level: 60,
      exitCode: 78,
      msg: expect.stringContaining(`failed to start: ${line}`),
    })
    expect(service.stderr()).toBe('')
  })

  it('exits non-zero with the reason when a start-up check fails, instead of staying up not ready', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-badcheck-'))
    const templates = join(cwd, 'templates')
    cpSync(join(packageRoot, 'templates'), templates, { recursive: true })
    writeFileSync(join(templates, 'diagnosis.html.hbs'), '<p>{{#each labels}}{{name}}</p>') // unclosed block
    const service = start({ DIAG_PORT: '0', DIAG_TEMPLATES_DIR: templates }, cwd)
    expect(await service.exited).toEqual({ code: 78, signal: null })
    const fatal = service.logLines().find((l) => l.level === 60)
    expect(fatal).toMatchObject({ exitCode: 78, msg: expect.stringContaining('failed to start: ') })
    expect(String(fatal?.msg)).toContain('diagnosis.html.hbs')
  })

  it('exits 1 with the reason when its port is taken', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    try {
      const port = String((blocker.address() as AddressInfo).port)
      const cwd = mkdtempSync(join(tmpdir(), 'diag-busyport-'))
      const service = start({ DIAG_PORT: port, DIAG_HOST: '127.0.0.1' }, cwd)
      expect(await service.exited).toEqual({ code: 1, signal: null })
      expect(service.logLines().find((l) => l.level === 60)?.msg).toMatch(/failed to start: .*EADDRINUSE/)
    } finally {
      blocker.close()
    }
  })

  it('logs a refused token with its reason and the entry name, never the token, and probes at debug', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-authlog-'))
    const tokens = join(cwd, 'tokens.json')
    writeFileSync(
      tokens,
      JSON.stringify([
        { name: 'alertmanager', token: 'valid-token-000000000001' },
        { name: 'retired', token: 'expired-token-0000000001', expiresAt: '2020-01-01T00:00:00Z' },
      ]),
    )
    const service = start({ DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKENS_FILE: tokens }, cwd)
    const url = await service.ready
    const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
    const get = (path: string, token?: string) =>
      request(`${url}${path}`, { ca, headers: token ? { authorization: `Bearer ${token}` } : {} })
    expect((await get('/health/ready')).status).toBe(200)
    expect((await get('/api/v1/rules', 'expired-token-0000000001')).status).toBe(401)
    expect((await get('/api/v1/rules', 'unknown-token-000000001')).status).toBe(401)
    expect((await get('/api/v1/rules', 'valid-token-000000000001')).status).toBe(200)
    // The last request's completion is the positive signal that every line before it is written.
    await waitFor(() =>
      service
        .logLines()
        .some((l) => l.msg === 'request completed' && (l.res as { statusCode?: number })?.statusCode === 200),
    )
    const refusals = service
      .logLines()
      .filter((l) => typeof l.msg === 'string' && l.msg.startsWith('refused a request'))
    expect(refusals.map((l) => [l.level, l.auth])).toEqual([
      [40, { reason: 'expired', name: 'retired' }],
      [30, { reason: 'unknown' }],
    ])
    expect(service.stdout()).not.toContain('expired-token-0000000001')
    expect(service.stdout()).not.toContain('unknown-token-000000001')
    expect(service.stdout()).not.toContain('/health/ready')
  })

  it('drains an in-flight request on SIGTERM, then exits 0 (D28)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'diag-sigterm-'))
    const service = start({ DIAG_PORT: '0', DIAG_HOST: '127.0.0.1', DIAG_API_TOKEN: 'sigterm-token-000001' }, cwd)
    const url = await service.ready
    const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
    // A request whose body is still arriving when the signal comes must still be answered.
    const body = JSON.stringify(webhook([alert({ id: 'inflight01' })]))
    const answered = new Promise<number>((resolve, reject) => {
      const req = rawRequest(
        `${url}/api/v1/alerts/alertmanager`,
        {
          method: 'POST',
          ca,
          agent: false,
          headers: {
            authorization: 'Bearer sigterm-token-000001',
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.write(body.slice(0, 20))
      // The signal comes once the service has the request (it logs it), before the body ends.
      const received = setInterval(() => {
        if (!service.stdout().includes('"msg":"incoming request"')) return
        clearInterval(received)
        service.child.kill('SIGTERM')
        setTimeout(() => req.end(body.slice(20)), 300)
      }, 20)
    })
    expect(await answered).toBe(202)
    expect(await service.exited).toEqual({ code: 0, signal: null })
  })
})
