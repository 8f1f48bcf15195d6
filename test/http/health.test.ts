import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { realTool } from '../helpers/real-tools.js'

const families = [
  ['diagnostic_service_ready', 'gauge'],
  ['diagnostic_db_size_bytes', 'gauge'],
  ['diagnostic_stale_locks_recovered_total', 'counter'],
  ['diagnostic_stale_locks_exhausted_total', 'counter'],
  ['diagnostic_records_pruned_total', 'counter'],
  ['diagnostic_housekeeping_runs_total', 'counter'],
  ['diagnostic_worker_failures_total', 'counter'],
  ['diagnostic_notifications_sent_total', 'counter'],
  ['diagnostic_notifications_failed_total', 'counter'],
  ['diagnostic_mail_failures_total', 'counter'],
  ['diagnostic_build_info', 'gauge'],
  ['diagnostic_diagnoses_total', 'counter'],
  ['diagnostic_evidence_source_failures_total', 'counter'],
  ['diagnostic_http_request_duration_seconds', 'histogram'],
  ['diagnostic_mails_pending', 'gauge'],
  ['diagnostic_mails_retrying', 'gauge'],
  ['diagnostic_queue_capacity', 'gauge'],
  ['diagnostic_tls_certificate_expires_in_seconds', 'gauge'],
  ['diagnostic_api_token_expires_in_seconds', 'gauge'],
] as const

describe('health and metrics (D26, D27)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())
  const get = (path: string, headers: Record<string, string> = {}) =>
    t.call('GET', path, { headers: { authorization: '', ...headers } })

  it('answers /health/live publicly with {"status":"UP"}', async () => {
    const res = await get('/health/live')
    expect(res.status).toBe(200)
    expect(res.json()).toEqual({ status: 'UP' })
  })

  it('answers /health/ready 200 when ready and 503 with the reason otherwise', async () => {
    expect((await get('/health/ready')).json()).toEqual({ status: 'UP' })
    t.service.readiness.set('startup_failed')
    try {
      const res = await get('/health/ready')
      expect(res.status).toBe(503)
      expect(res.json()).toEqual({ status: 'DOWN', reason: 'startup_failed' })
      await scrapeUntil(async () => (await get('/metrics')).text, /^diagnostic_service_ready 0$/m)
    } finally {
      t.service.readiness.set('ready')
    }
  })

  it.each(['/health', '/metrics'])('serves every family with HELP and TYPE on %s, publicly', async (path) => {
    const res = await get(path)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    for (const [name, type] of families) {
      expect(res.text).toContain(`# HELP ${name} `)
      expect(res.text).toContain(`# TYPE ${name} ${type}`)
    }
    await scrapeUntil(async () => (await get(path)).text, /^diagnostic_service_ready 1$/m)
    expect(res.text).toMatch(/^diagnostic_build_info\{version="\d+\.\d+\.\d+",node_version="[\d.]+"\} 1$/m)
  })

  it('keeps diagnostic_db_size_bytes current as events are stored', async () => {
    const size = async () => Number(/^diagnostic_db_size_bytes (\d+)$/m.exec((await get('/metrics')).text)?.[1])
    const before = await size()
    expect(before).toBeGreaterThan(0)
    const alerts = Array.from({ length: 50 }, (_, i) =>
      alert({ id: `size${i}`, annotations: { description: 'y'.repeat(2000) } }),
    )
    expect((await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook(alerts) })).status).toBe(202)
    const grown = async () => ((await size()) > before ? 'grown' : 'not yet')
    await scrapeUntil(grown, /^grown$/)
  })

  it('answers /health with JSON when Accept prefers application/json', async () => {
    const res = await get('/health', { accept: 'application/json' })
    expect(res.status).toBe(200)
    expect(res.json()).toEqual({ status: 'UP', state: 'ready', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) })
    // A scraper's Accept keeps the text format.
    const scrape = await get('/health', {
      accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5,*/*;q=0.1',
    })
    expect(scrape.text).toContain('# TYPE diagnostic_service_ready gauge')
    expect((await get('/metrics', { accept: 'application/json' })).text).toContain('# HELP')
  })

  it('passes promtool check metrics', async () => {
    const promtool = realTool('promtool', 'prometheus')
    const exposition = (await get('/metrics')).text
    const result = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8' })
    expect(result.stdout + result.stderr).toBe('')
    expect(result.status).toBe(0)
  })
})

describe('queue, rejection and latency metrics', () => {
  const metric = (text: string, line: RegExp) => Number(line.exec(text)?.[1] ?? Number.NaN)

  it('shows the queue depth, the age of the oldest queued event and requests rejected by reason', async () => {
    const t = await build({
      DIAG_WORKER: 'off',
      DIAG_QUEUE_CAPACITY: '2',
      DIAG_RATE_LIMIT_PER_MINUTE: '0',
      DIAG_ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1',
    })
    // Scraped with the token: the anonymous limit of one request a minute is for the 429 below.
    const scrape = async () => (await t.call('GET', '/metrics')).text
    const post = (json: unknown, headers: Record<string, string> = {}) =>
      t.call('POST', '/api/v1/alerts/alertmanager', { json, headers })
    try {
      let text = await scrapeUntil(scrape, /^diagnostic_queue_depth\{status="queued"\} 0$/m)
      expect(metric(text, /^diagnostic_queue_oldest_age_seconds (\S+)$/m)).toBe(0)
      const received = (outcome: string) =>
        metric(text, new RegExp(`^diagnostic_alerts_received_total\\{outcome="${outcome}"\\} (\\S+)$`, 'm'))
      // Every outcome is a series before its first alert.
      expect(['queued', 'recorded', 'duplicate'].map(received)).toEqual([0, 0, 0])
      for (const id of ['q1', 'q2']) expect((await post(webhook([alert({ id })]))).status).toBe(202)
      expect((await post(webhook([alert({ id: 'q3' })]))).status).toBe(503) // queue_full
      expect((await post(webhook([alert({ id: 'q1' })]))).status).toBe(202) // a duplicate needs no room
      text = await scrapeUntil(scrape, /^diagnostic_alerts_received_total\{outcome="duplicate"\} 1$/m)
      expect(['queued', 'recorded', 'duplicate'].map(received)).toEqual([2, 0, 1])
      expect((await post({ alerts: 'none' })).status).toBe(400) // invalid_alert_payload
      expect((await post(webhook([alert()]), { authorization: 'Bearer unknown-token-0123456789' })).status).toBe(401)
      expect((await post(webhook([alert()]), { authorization: 'Bearer unknown-token-0123456789' })).status).toBe(429)
      text = await scrapeUntil(scrape, /^diagnostic_queue_depth\{status="queued"\} 2$/m)
      await scrapeUntil(scrape, /^diagnostic_requests_rejected_total\{reason="rate_limited"\} 1$/m)
      text = await scrape()
      for (const reason of ['queue_full', 'invalid_alert_payload', 'unauthorized', 'rate_limited']) {
        expect(
          metric(text, new RegExp(`^diagnostic_requests_rejected_total\\{reason="${reason}"\\} (\\S+)$`, 'm')),
        ).toBe(1)
      }
      expect(metric(text, /^diagnostic_queue_depth\{status="processing"\} (\S+)$/m)).toBe(0)
      // Waiting is a positive age that grows while nothing drains the queue.
      const age = metric(text, /^diagnostic_queue_oldest_age_seconds (\S+)$/m)
      expect(age).toBeGreaterThan(0)
      await scrapeUntil(async () => {
        const later = metric(await scrape(), /^diagnostic_queue_oldest_age_seconds (\S+)$/m)
        return later > age ? 'older' : 'same'
      }, /^older$/)
    } finally {
      await t.close()
    }
  })

  it('observes the diagnosis latency of every report', async () => {
    const t = await build()
    const scrape = async () => (await t.call('GET', '/metrics', { headers: { authorization: '' } })).text
    try {
      for (const id of ['l1', 'l2']) {
        expect((await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert({ id })]) })).status).toBe(
          202,
        )
      }
      const text = await scrapeUntil(scrape, /^diagnostic_diagnosis_latency_seconds_count 2$/m, 20_000)
      expect(metric(text, /^diagnostic_diagnosis_latency_seconds_sum (\S+)$/m)).toBeGreaterThan(0)
      expect(text).toContain('# TYPE diagnostic_diagnosis_latency_seconds histogram')
      expect(text).toMatch(/^diagnostic_diagnosis_latency_seconds_bucket\{le="\+Inf"\} 2$/m)
    } finally {
      await t.close()
    }
  })
})
