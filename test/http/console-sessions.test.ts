import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256Hex } from '../../src/sha256.js'
import { build, type TestService } from '../helpers/build.js'
import { ConsoleClient, csrfOf, setCookies } from '../helpers/console-client.js'
import type { HttpResponse } from '../helpers/https-client.js'
import { capturedLog } from '../helpers/log-capture.js'

// The console's sign-in (docs/design.md, "The web console"): a token with the read scope
// for a session kept in the database, over the real HTTPS listener, on SQLite and on
// PostgreSQL (npm run test:postgres).

const tokens = {
  viewer: 'console-token-viewer-00000001',
  sre: 'console-token-sre-0000000001',
  alertmanager: 'console-token-alertmanager-1',
  old: 'console-token-expired-000001',
}

const csp =
  "default-src 'none';style-src 'self';img-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'"

/** What every console answer carries, whatever it is. */
function secured(res: HttpResponse) {
  expect(res.headers['content-security-policy']).toBe(csp)
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  expect(res.headers['strict-transport-security']).toBe('max-age=31536000')
}

describe('console sessions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-console-'))
  const log = capturedLog('debug')
  let t: TestService
  const browser = () => new ConsoleClient(t.service.url, t.ca)
  const sessions = async () => (await t.rows('SELECT * FROM console_sessions')) as Array<Record<string, unknown>>

  beforeAll(async () => {
    const file = join(dir, 'tokens.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'viewer', token: tokens.viewer, scopes: ['read'] },
        { name: 'sre', token: tokens.sre, scopes: ['read', 'rules:write'] },
        { name: 'alertmanager', token: tokens.alertmanager, scopes: ['webhook'] },
        { name: 'old', token: tokens.old, scopes: ['read'], expiresAt: '2020-01-01T00:00:00Z' },
      ]),
    )
    // This client opens a connection per request, most of them signed out: the bound on new
    // anonymous connections per second (test/e2e/hostile-clients.test.ts) is not this file's subject.
    t = await build(
      { DIAG_API_TOKENS_FILE: file, DIAG_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: '0' },
      { logger: log.logger },
    )
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('sends a signed-out browser to the sign-in page, with the page it asked for', async () => {
    const res = await browser().get('/console/incidents?state=open')
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe(`/console/sign-in?next=${encodeURIComponent('/console/incidents?state=open')}`)
    secured(res)
    const root = await browser().get('/console')
    expect(root.status).toBe(303)
  })

  it('shows the sign-in form with a CSRF token, its secret in a __Host- cookie', async () => {
    const res = await browser().get('/console/sign-in')
    expect(res.status).toBe(200)
    secured(res)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.text).toContain('name="token" type="password"')
    expect(csrfOf(res.text)).toMatch(/\S{20,}/)
    const [secret] = setCookies(res)
    expect(secret?.name).toBe('__Host-diag-csrf')
    expect(secret?.attributes).toMatchObject({ path: '/', httponly: true, secure: true, samesite: 'Strict' })
    expect(secret?.attributes.domain).toBeUndefined()
    expect(res.text).not.toMatch(/<script|style=|\son[a-z]+=/i)
  })

  it('exchanges a token with the read scope for a session cookie; the database keeps only its hash', async () => {
    const b = browser()
    const res = await b.signIn(tokens.viewer, '/console/rules')
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe('/console/rules')
    secured(res)
    const cookie = setCookies(res).find((c) => c.name === '__Host-diag-session')
    expect(cookie?.attributes).toEqual({
      'max-age': String(8 * 3600),
      path: '/',
      httponly: true,
      secure: true,
      samesite: 'Strict',
    })
    const id = cookie?.value as string
    const stored = (await sessions()).find((s) => s.id_hash === sha256Hex(id))
    expect(stored).toMatchObject({ principal: 'viewer', scopes: '["read"]' })
    expect(JSON.stringify(await sessions())).not.toContain(id)
    const page = await b.get('/console/rules')
    expect(page.status).toBe(200)
    secured(page)
    expect(page.text).toContain('Signed in as <strong>viewer</strong>')
  })

  it.each([
    ['an unknown token', 'console-token-nobody-000000001', 401, 'This token is not known to the service.'],
    ['an expired token', tokens.old, 401, 'This token has expired.'],
    ['a token without the read scope', tokens.alertmanager, 403, 'This token does not have the read scope'],
  ])('refuses %s with a clear message and no session', async (_what, token, status, message) => {
    const before = (await sessions()).length
    const res = await browser().signIn(token)
    expect(res.status).toBe(status)
    secured(res)
    expect(res.text).toContain(message)
    expect(res.text).not.toContain(token)
    expect(setCookies(res).some((c) => c.name === '__Host-diag-session')).toBe(false)
    expect((await sessions()).length).toBe(before)
  })

  it('refuses a sign-in form without its CSRF token, and one from a page of another browser', async () => {
    const before = (await sessions()).length
    const tokenless = await browser().post('/console/sign-in', { token: tokens.viewer })
    expect(tokenless.status).toBe(403)
    secured(tokenless)
    expect(tokenless.text).toContain('This form was refused')
    const other = await browser().get('/console/sign-in')
    const forged = await browser().post('/console/sign-in', { _csrf: csrfOf(other.text), token: tokens.viewer })
    expect(forged.status).toBe(403)
    expect((await sessions()).length).toBe(before)
  })

  it('signs out with the form, deletes the session, and refuses its cookie replayed after', async () => {
    const b = browser()
    await b.signIn(tokens.sre)
    const id = b.cookies.get('__Host-diag-session') as string
    expect((await sessions()).some((s) => s.id_hash === sha256Hex(id))).toBe(true)
    const out = await b.signOut()
    expect(out.status).toBe(303)
    expect(out.headers.location).toBe('/console/sign-in?signed-out=1')
    secured(out)
    const cleared = setCookies(out).find((c) => c.name === '__Host-diag-session')
    expect(cleared?.value).toBe('')
    expect((await sessions()).some((s) => s.id_hash === sha256Hex(id))).toBe(false)
    const replay = new ConsoleClient(t.service.url, t.ca)
    replay.cookies.set('__Host-diag-session', id)
    const res = await replay.get('/console/incidents')
    expect(res.status).toBe(303)
    expect(res.headers.location).toContain('/console/sign-in?')
    expect(res.headers.location).toContain('ended=1')
  })

  it('refuses a sign-out without its CSRF token, and one another site posts (no cookies): the session stays', async () => {
    const b = browser()
    await b.signIn(tokens.viewer)
    const id = b.cookies.get('__Host-diag-session') as string
    const tokenless = await b.post('/console/sign-out', {})
    expect(tokenless.status).toBe(403)
    secured(tokenless)
    // SameSite=Strict: a form another site posts arrives without the console's cookies.
    const crossSite = await browser().post('/console/sign-out', { _csrf: 'x' }, { origin: 'https://evil.example' })
    expect(crossSite.status).toBe(303)
    expect(crossSite.headers.location).toBe('/console/sign-in')
    expect((await sessions()).some((s) => s.id_hash === sha256Hex(id))).toBe(true)
    expect((await b.get('/console/incidents')).status).toBe(200)
  })

  it('ends a session at its absolute end, and after its idle time; housekeeping removes it', async () => {
    for (const column of ['expires_at', 'idle_until']) {
      const b = browser()
      await b.signIn(tokens.viewer)
      expect((await b.get('/console/incidents')).status).toBe(200)
      const hash = sha256Hex(b.cookies.get('__Host-diag-session') as string)
      await t.rows(`UPDATE console_sessions SET ${column} = ? WHERE id_hash = ?`, Date.now() - 1, hash)
      const res = await b.get('/console/incidents')
      expect(res.status, column).toBe(303)
      expect(b.cookies.has('__Host-diag-session')).toBe(false)
      await t.service.housekeeping.runOnce()
      expect((await sessions()).some((s) => s.id_hash === hash)).toBe(false)
    }
  })

  it('puts the CSP on every console answer: pages, errors, the stylesheet, the CSV', async () => {
    const b = browser()
    await b.signIn(tokens.viewer)
    for (const path of [
      '/console/incidents',
      '/console/incidents.csv',
      '/console/charts',
      '/console/rules',
      '/console/static/console.css',
      '/console/static/icon.svg',
      '/console/no-such-page',
      '/console/incidents/01a20000-0000-7000-8000-000000000000',
      '/console/incidents?state=closed',
    ]) {
      const res = await b.get(path)
      secured(res)
      expect([200, 400, 404], path).toContain(res.status)
    }
    expect((await b.get('/console/no-such-page')).status).toBe(404)
    expect((await b.get('/console/incidents?state=closed')).status).toBe(400)
  })

  it('never writes a token or a session id to the log', async () => {
    const b = browser()
    await b.signIn(tokens.sre)
    await b.get('/console/incidents')
    await browser().signIn(tokens.alertmanager)
    await browser().signIn('console-token-nobody-000000002')
    const id = b.cookies.get('__Host-diag-session') as string
    await log.waitFor((line) => line.msg === 'console session started', 'a sign-in logged')
    const text = JSON.stringify(log.lines)
    expect(text).toContain('console sign-in refused')
    for (const secret of [...Object.values(tokens), 'console-token-nobody-000000002', id]) {
      expect(text).not.toContain(secret)
    }
  })

  it('keeps the API as it was: a form body is not JSON, and the API carries no console header', async () => {
    const res = await t.call('POST', '/api/v1/rules', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${tokens.sre}` },
      body: 'branch=X-01',
    })
    expect(res.status).toBe(415)
    expect(res.headers['content-security-policy']).toBeUndefined()
  })
})
