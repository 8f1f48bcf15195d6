import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { realPackageFile } from '../helpers/real-tools.js'
import { exportRunawayRule } from '../helpers/rule-input.js'
import { waitFor } from '../helpers/smtp.js'

// The console in a real browser (docs/design.md, "The web console"): Debian's chromium driven
// by playwright-core against the real service over TLS 1.3. One browser for the file, a few
// pages; each page is checked for CSP violations, console errors and serious accessibility
// faults (axe-core), and photographed into test-artifacts/console/ (not committed).

const tokens = {
  viewer: 'browser-token-viewer-000001',
  alertmanager: 'browser-token-webhook-00001',
  sre: 'browser-token-sre-00000000001',
}
const screenshots = join(packageRoot, 'test-artifacts', 'console')
const axeSource = readFileSync(join(packageRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

/**
 * The base64 SHA-256 of the service certificate's public key, read from a TLS handshake
 * verified against the generated CA: chromium is told to accept that key alone
 * (--ignore-certificate-errors-spki-list), not every certificate (ignoreHTTPSErrors).
 */
function serverKeyPin(url: string, ca: Buffer): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername: undefined }, () => {
      const key = socket.getPeerX509Certificate()?.publicKey.export({ type: 'spki', format: 'der' })
      socket.end()
      if (!key) reject(new Error('no peer certificate'))
      else resolve(createHash('sha256').update(key).digest('base64'))
    })
    socket.on('error', reject)
  })
}

interface PageProblems {
  console: string[]
  errors: string[]
}

describe('the console in chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-browser-'))
  let t: TestService
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let otherSite: Server
  let otherSiteUrl: string
  const problems: PageProblems = { console: [], errors: [] }

  /** Listens to what a page reports: console errors and warnings, uncaught errors, CSP violations. */
  async function watched(target: BrowserContext): Promise<Page> {
    // Run in each page before its own content (through the DevTools protocol, which the CSP does not govern).
    await target.addInitScript({
      content: `window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
    })
    const opened = await target.newPage()
    opened.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') {
        problems.console.push(`${message.type()}: ${message.text()} (${opened.url()})`)
      }
    })
    opened.on('pageerror', (error) => problems.errors.push(`${error.message} (${opened.url()})`))
    return opened
  }

  /** No CSP violation on the page, no serious or critical axe finding; a full-page screenshot. */
  async function checkPage(target: Page, name: string) {
    const violations = await target.evaluate('window.cspViolations')
    expect(violations, `CSP violations on ${name}`).toEqual([])
    // Evaluated through the DevTools protocol, which the page's CSP does not govern: the page
    // keeps its policy, and no <script> element is added that it would refuse.
    await target.evaluate(axeSource)
    const found = (await target.evaluate(`axe.run().then((result) => result.violations.map((v) =>
      ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`)) as Array<{ impact: string }>
    const serious = found.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    expect(serious, `axe on ${name}`).toEqual([])
    await target.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true })
  }

  beforeAll(async () => {
    const executablePath = realPackageFile('/usr/bin/chromium', 'chromium')
    mkdirSync(screenshots, { recursive: true })
    const file = join(dir, 'tokens.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'viewer', token: tokens.viewer, scopes: ['read'] },
        { name: 'alertmanager', token: tokens.alertmanager, scopes: ['webhook'] },
        { name: 'sre', token: tokens.sre, scopes: ['read', 'rules:write'] },
      ]),
    )
    t = await build({ DIAG_API_TOKENS_FILE: file })
    const post = (payload: unknown) =>
      t.call('POST', '/api/v1/alerts/alertmanager', {
        json: payload,
        headers: { authorization: `Bearer ${tokens.alertmanager}` },
      })
    await post(webhook([alert({ id: 'b1', startsAt: '2026-11-22T04:56:00.000Z' })]))
    await post(webhook([alert({ id: 'b2', startsAt: '2026-11-22T04:57:30.000Z' }, { appserver_instance: 'app-02' })]))
    const sent = async () => (await t.rows("SELECT id FROM outbox WHERE status = 'sent'")).length === 2
    await waitFor(sent, 20_000, 'two diagnoses delivered')
    // Another site: a page on another host name whose form posts to the console's sign-out.
    otherSite = createServer((request, response) => {
      if (request.url !== '/') return void response.writeHead(204).end()
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><title>Another site</title><form method="post" action="${t.service.url}/console/sign-out">
         <input type="hidden" name="_csrf" value="guessed"><button>Win a prize</button></form></html>`,
      )
    })
    await new Promise<void>((resolve) => otherSite.listen(0, '127.0.0.1', resolve))
    otherSiteUrl = `http://localhost:${(otherSite.address() as AddressInfo).port}/`
    const pin = await serverKeyPin(t.service.url, t.ca)
    browser = await chromium.launch({
      executablePath,
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    })
    context = await browser.newContext()
    page = await watched(context)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    otherSite?.close()
    await t?.close()
    rmSync(dir, { recursive: true, force: true })
    console.log(`console screenshots: ${screenshots}`)
  })

  it('sends a signed-out browser to sign in, then back to the page it asked for', async () => {
    await page.goto(`${t.service.url}/console/incidents?state=open`)
    expect(new URL(page.url()).pathname).toBe('/console/sign-in')
    await checkPage(page, 'sign-in')
    await page.getByLabel('API token with the read scope').fill(tokens.viewer)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/console\/incidents\?state=open$/)
    expect(await page.locator('table.incidents tbody tr').count()).toBe(2)
    await checkPage(page, 'incidents')
  }, 60_000)

  it('filters the list with the form, into a URL', async () => {
    await page.goto(`${t.service.url}/console/incidents`)
    await page.getByLabel('Instance').fill('app-02')
    await page.getByLabel('State').selectOption('open')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/instance=app-02/)
    expect(page.url()).toContain('state=open')
    const rows = page.locator('table.incidents tbody tr')
    expect(await rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain('AH-01')
  }, 60_000)

  it('opens an incident and reads why this branch, its timeline and its report as mailed', async () => {
    await page.goto(`${t.service.url}/console/incidents?instance=app-01`)
    await page.locator('table.incidents tbody a').first().click()
    await page.waitForURL(/\/console\/incidents\/[^?]+$/)
    await page.getByRole('link', { name: 'Why this branch' }).click()
    const why = page.getByRole('region', { name: 'Why this branch' })
    expect(await why.locator('p').first().textContent()).toContain('TD-02 JavaHeapExhausted is the primary finding.')
    const primary = why.locator('table.conditions').first()
    expect(await primary.locator('caption').textContent()).toContain(
      'TD-02 JavaHeapExhausted: matched: the primary finding',
    )
    // The log condition that held, with the line of examples/logs/app-01 it matched.
    const held = primary.locator('tr', { hasText: 'line ' }).filter({ hasText: 'held' }).first()
    expect(await held.textContent()).toMatch(
      /log\s*matches[\s\S]*OutOfMemoryError: Java heap space[\s\S]*line \d+: \s*java\.lang\.OutOfMemoryError/,
    )
    expect(await why.locator('table.ranking tbody tr').first().textContent()).toContain("the rules' priorities")
    const timeline = (await page.locator('table.timeline').textContent()) ?? ''
    expect(timeline).toContain('Firing notification received (opened)')
    expect(timeline).toMatch(/Evidence from the logs \(read, redacted, scanned\): ok\s*\d+(\.\d)? (ms|s)/)
    expect(timeline).toContain('The diagnosis mail was sent')
    expect(await page.locator('pre.report').first().textContent()).toContain(
      'DIAGNOSIS REPORT - AppServerDown on app-01',
    )
    expect(await page.getByRole('heading', { name: 'Evidence' }).count()).toBe(1)
    await checkPage(page, 'incident')
  }, 60_000)

  it('shows the charts and the rules', async () => {
    await page.goto(`${t.service.url}/console/charts`)
    expect(await page.locator('svg.chart rect').count()).toBeGreaterThan(0)
    await checkPage(page, 'charts')
    await page.goto(`${t.service.url}/console/rules`)
    expect(await page.locator('table.rules tbody tr').count()).toBe(30)
    await checkPage(page, 'rules')
  }, 60_000)

  it('replays a candidate rule, sees the incident it would change, and registers it with one click', async () => {
    // An SRE with rules:write, in a browser of their own.
    const sre = await watched(await browser.newContext())
    await sre.goto(`${t.service.url}/console/rules`)
    await sre.getByLabel('API token with the read scope').fill(tokens.sre)
    await sre.getByRole('button', { name: 'Sign in' }).click()
    await sre.waitForURL(/\/console\/rules$/)
    await sre.getByRole('link', { name: 'Replay a candidate rule' }).click()
    await sre.waitForURL(/\/console\/rules\/replay$/)
    await checkPage(sre, 'replay')
    await sre.getByLabel('Candidate rule or rulepack (JSON)').fill(JSON.stringify(exportRunawayRule, null, 2))
    expect(await sre.getByLabel('Replay on the last N diagnosed events (1 to 5000)').inputValue()).toBe('1000')
    await sre.getByRole('button', { name: 'Replay', exact: true }).click()
    await sre.getByRole('heading', { name: 'What would change' }).waitFor()
    const changed = sre.locator('table.changed > tbody > tr')
    expect(await changed.count()).toBe(1)
    const row = changed.first()
    expect(await row.getByRole('link').textContent()).toBe('AppServerDown on app-01')
    expect(await row.locator('td').nth(0).textContent()).toContain('TD-02 JavaHeapExhausted')
    expect(await row.locator('td').nth(1).textContent()).toContain('RP-01 ReportExportRunaway')
    await row.getByText('The conditions that decided').click()
    expect(await row.locator('table.conditions').textContent()).toContain('export 8812 started for customer 4411')
    await checkPage(sre, 'replay-result')
    // One click: the candidates as replayed, registered through the API's service.
    await sre.getByRole('button', { name: 'Register RP-01' }).click()
    await sre.getByRole('status').filter({ hasText: 'Registered' }).waitFor()
    await checkPage(sre, 'replay-registered')
    await sre.getByRole('link', { name: 'RP-01 ReportExportRunaway' }).click()
    await sre.waitForURL(/\/console\/rules\?from=0#rule-11$/)
    expect(await sre.locator('#rule-11').textContent()).toMatch(
      /RP-01[\s\S]*ReportExportRunaway[\s\S]*custom: token sre/,
    )
    await sre.context().close()
  }, 120_000)

  it('keeps the session when another site posts the sign-out form (SameSite=Strict, CSRF)', async () => {
    await page.goto(otherSiteUrl)
    await page.getByRole('button', { name: 'Win a prize' }).click()
    await page.waitForURL(/\/console\/sign-in/)
    await page.goto(`${t.service.url}/console/incidents`)
    expect(new URL(page.url()).pathname).toBe('/console/incidents')
  }, 60_000)

  it('signs out; the browser is signed out after', async () => {
    await page.goto(`${t.service.url}/console/incidents`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(/\/console\/sign-in\?signed-out=1$/)
    expect(await page.getByRole('status').textContent()).toBe('You are signed out.')
    expect((await context.cookies()).map((c) => c.name)).not.toContain('__Host-diag-session')
    await page.goto(`${t.service.url}/console/rules`)
    expect(new URL(page.url()).pathname).toBe('/console/sign-in')
  }, 60_000)

  it('reported no console error, no uncaught error and no CSP violation on any page', () => {
    expect(problems).toEqual({ console: [], errors: [] })
  })

  it('refuses a token without the read scope, saying why', async () => {
    await page.getByLabel('API token with the read scope').fill(tokens.alertmanager)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toContain('does not have the read scope')
    await checkPage(page, 'sign-in-refused')
    // The refusal is a 403 page, which chromium reports as a failed load: that, and nothing else.
    expect(problems.console).toEqual([expect.stringMatching(/^error: .* status of 403 .*\/console\/sign-in\)$/)])
    expect(problems.errors).toEqual([])
  }, 60_000)
})
