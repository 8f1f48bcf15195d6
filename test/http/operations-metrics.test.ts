import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { startSmtp } from '../helpers/smtp.js'

// The metrics to run the service by (docs/operations.md, "Metrics and what to alert on"), read
// from the exposition of a real service.

const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('diagnoses, evidence failures and request durations', () => {
  let t: TestService
  const scrape = async () => (await t.call('GET', '/metrics')).text
  beforeAll(async () => {
    t = await build({ DIAG_QUEUE_CAPACITY: '77' })
  })
  afterAll(() => t.close())

  it('counts diagnoses by branch, classification and confidence, TD-07 and TD-08 from zero', async () => {
    let text = await scrape()
    expect(
      value(text, 'diagnostic_diagnoses_total{branch="TD-07",classification="undetermined",confidence="none"}'),
    ).toBe(0)
    expect(
      value(text, 'diagnostic_diagnoses_total{branch="TD-08",classification="undetermined",confidence="none"}'),
    ).toBe(0)
    // app-01 of examples/ logs a heap exhaustion; app-99 is in no inventory: evidence unavailable.
    const alerts = [alert({ id: 'known' }), alert({ id: 'unknown' }, { appserver_instance: 'app-99' })]
    expect((await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook(alerts) })).status).toBe(202)
    text = await scrapeUntil(
      scrape,
      /^diagnostic_diagnoses_total\{branch="TD-07",classification="undetermined",confidence="none"\} 1$/m,
      20_000,
    )
    text = await scrapeUntil(scrape, /^diagnostic_diagnoses_total\{branch="TD-02",/m, 20_000)
    expect(text).toMatch(
      /^diagnostic_diagnoses_total\{branch="TD-02",classification="probable_cause",confidence="medium"\} 1$/m,
    )
    expect(value(text, 'diagnostic_evidence_source_failures_total{source="inventory",reason="unknown_instance"}')).toBe(
      1,
    )
    // examples/inventory.json names no metrics or health endpoint for app-01: nothing failed.
    expect(text).not.toMatch(/^diagnostic_evidence_source_failures_total\{source="(log|spool|metrics|probe)"/m)
  })

  it('times requests by route pattern, method and status class, never by the URL sent', async () => {
    // The webhook of the test above was the one POST.
    const id = '01a20000-0000-7000-8000-00000000abcd'
    expect((await t.call('GET', `/api/v1/incidents/${id}`)).status).toBe(404)
    expect((await t.call('GET', '/api/v1/incidents?limit=5')).status).toBe(200)
    expect((await t.call('GET', `/no/such/path/${id}`)).status).toBe(404)
    const text = await scrapeUntil(scrape, /route="unmatched"/m)
    const count = (labels: string) => value(text, `diagnostic_http_request_duration_seconds_count{${labels}}`)
    expect(count('route="/api/v1/incidents/:id",method="GET",status_class="4xx"')).toBe(1)
    expect(count('route="/api/v1/incidents",method="GET",status_class="2xx"')).toBe(1)
    expect(count('route="unmatched",method="GET",status_class="4xx"')).toBe(1)
    expect(count('route="/api/v1/alerts/alertmanager",method="POST",status_class="2xx"')).toBe(1)
    expect(text).not.toContain(id)
  })

  it('shows the queue capacity beside its depth', async () => {
    expect(value(await scrape(), 'diagnostic_queue_capacity')).toBe(77)
  })
})

describe('mails waiting and credentials expiring', () => {
  it('shows a report that the relay refuses for now as pending and retrying', async () => {
    const smtp = await startSmtp({ reject: 451 })
    const t = await build({ DIAG_SMTP_URL: smtp.url, DIAG_MAIL_RETRY_BASE_MS: '600000' })
    try {
      const scrape = async () => (await t.call('GET', '/metrics')).text
      let text = await scrape()
      expect([value(text, 'diagnostic_mails_pending'), value(text, 'diagnostic_mails_retrying')]).toEqual([0, 0])
      expect((await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert()]) })).status).toBe(202)
      text = await scrapeUntil(scrape, /^diagnostic_mails_retrying 1$/m, 20_000)
      expect(value(text, 'diagnostic_mails_pending')).toBe(1)
    } finally {
      await t.close()
      await smtp.close()
    }
  })

  it('shows the time left of the certificate and of each expiring token, by name, never the token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-token-expiry-'))
    const tokensFile = join(dir, 'tokens.json')
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString()
    const secret = 'alertmanager-secret-0123456789'
    writeFileSync(
      tokensFile,
      JSON.stringify([
        { name: 'alertmanager', token: secret, expiresAt, scopes: ['webhook'] },
        { name: 'dashboard', token: 'dashboard-secret-0123456789', scopes: ['read'] },
      ]),
    )
    const t = await build({ DIAG_API_TOKENS_FILE: tokensFile })
    try {
      const text = (await t.call('GET', '/metrics')).text
      const days = (value(text, 'diagnostic_api_token_expires_in_seconds{token="alertmanager"}') ?? 0) / 86_400
      expect(days).toBeGreaterThan(29.9)
      expect(days).toBeLessThanOrEqual(30)
      // Tokens without an expiresAt (dashboard, and DIAG_API_TOKEN's default) have no series.
      expect(text.match(/^diagnostic_api_token_expires_in_seconds\{/gm)).toHaveLength(1)
      expect(text).not.toContain(secret)
      const certificate = new X509Certificate(readFileSync(join(t.dataDir, 'tls', 'server.pem')))
      const left = (Date.parse(certificate.validTo) - Date.now()) / 86_400_000
      expect((value(text, 'diagnostic_tls_certificate_expires_in_seconds') ?? 0) / 86_400).toBeCloseTo(left, 1)
      expect(left).toBeGreaterThan(1)
    } finally {
      await t.close()
    }
  })
})
