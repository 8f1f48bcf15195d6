import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService, testToken } from '../helpers/build.js'
import { capturedLog, levels } from '../helpers/log-capture.js'
import { scrapeUntil } from '../helpers/metrics.js'

// A 4xx makes Alertmanager drop the whole group for good: the service's log says what it
// refused and why, and diagnostic_webhooks_refused_total counts it (docs/operations.md,
// "A refused webhook").

const path = '/api/v1/alerts/alertmanager'

describe('a refused webhook', () => {
  const log = capturedLog()
  let t: TestService
  beforeAll(async () => {
    t = await build({ DIAG_LOG_LEVEL: 'info' }, { logger: log.logger })
  })
  afterAll(() => t.close())

  const metrics = () => t.call('GET', '/metrics').then((res) => res.text)
  const refusedLine = (requestId: string) =>
    log.waitFor((l) => l.reqId === requestId && /^refused a webhook/.test(l.msg), 'the refusal line')

  it('counts every reason from zero', async () => {
    await scrapeUntil(metrics, /^diagnostic_webhooks_refused_total\{reason="invalid_label"\} 0$/m)
    await scrapeUntil(metrics, /^diagnostic_webhooks_refused_total\{reason="missing_label"\} 0$/m)
  })

  it('logs a missing label with the receiver, group key, alert index, labels and reason; never a token or secret', async () => {
    const unlabelled = alert({ id: 'r1' }, { db_password: 'hunter2' }) as { labels: Record<string, string> }
    delete (unlabelled.labels as Partial<Record<string, string>>).severity
    const payload = webhook([alert({ id: 'r0' }), unlabelled], {
      receiver: 'team-payments',
      groupKey: '{}:{alertname="AppServerDown", db_password="gr0up"}',
    })
    const res = await t.call('POST', path, { json: payload, headers: { 'x-request-id': 'refusal-missing-label' } })
    expect(res.status).toBe(400)
    const line = await refusedLine('refusal-missing-label')
    expect(line).toMatchObject({
      level: levels.warn,
      msg: 'refused a webhook: missing_label',
      reason: 'missing_label',
      status: 400,
      receiver: 'team-payments',
      alertIndex: 1,
      labels: { alertname: 'AppServerDown', appserver_instance: 'app-01', alert_id: 'r1' },
      errors: [{ path: '/alerts/1/labels/severity', message: 'is missing' }],
    })
    expect(line.groupKey).toMatch(/^\{\}:\{alertname="AppServerDown"/)
    expect(JSON.stringify(log.lines)).not.toMatch(/hunter2|gr0up/)
    expect(JSON.stringify(log.lines)).not.toContain(testToken)
    await scrapeUntil(metrics, /^diagnostic_webhooks_refused_total\{reason="missing_label"\} 1$/m)
    // Nothing of the group was stored.
    expect(await t.count('events')).toBe(0)
  })

  it('logs a bad value with the alert it is in', async () => {
    const payload = webhook([alert({ id: 'r2', startsAt: 'yesterday' })])
    const res = await t.call('POST', path, { json: payload, headers: { 'x-request-id': 'refusal-bad-time' } })
    expect(res.status).toBe(400)
    expect(await refusedLine('refusal-bad-time')).toMatchObject({
      reason: 'invalid_time',
      alertIndex: 0,
      labels: { alert_id: 'r2', severity: 'critical' },
      errors: [{ path: '/alerts/0/startsAt' }],
    })
    await scrapeUntil(metrics, /^diagnostic_webhooks_refused_total\{reason="invalid_time"\} 1$/m)
  })

  it('logs a body that is not JSON, and one that is not application/json', async () => {
    const json = { 'content-type': 'application/json', 'x-request-id': 'refusal-json' }
    expect((await t.call('POST', path, { body: '{"receiver":', headers: json })).status).toBe(400)
    expect(await refusedLine('refusal-json')).toMatchObject({ reason: 'invalid_json', status: 400 })
    const text = { 'content-type': 'text/plain', 'x-request-id': 'refusal-media-type' }
    expect((await t.call('POST', path, { body: 'hello', headers: text })).status).toBe(415)
    expect(await refusedLine('refusal-media-type')).toMatchObject({ reason: 'unsupported_media_type', status: 415 })
    await scrapeUntil(metrics, /^diagnostic_webhooks_refused_total\{reason="unsupported_media_type"\} 1$/m)
  })

  it('does not count a request refused for its token: that is not the body', async () => {
    const res = await t.call('POST', path, {
      json: webhook([alert({ id: 'r3' })]),
      headers: { authorization: 'Bearer not-the-token-0000000000', 'x-request-id': 'refusal-token' },
    })
    expect(res.status).toBe(401)
    await log.waitFor((l) => l.reqId === 'refusal-token' && l.msg === 'request completed', 'the request line')
    expect(log.lines.some((l) => l.reqId === 'refusal-token' && /^refused a webhook/.test(l.msg))).toBe(false)
  })
})

describe("a refused webhook, with the operator's redaction options", () => {
  const log = capturedLog()
  let t: TestService
  beforeAll(async () => {
    t = await build({ DIAG_LOG_LEVEL: 'info', DIAG_REDACT_EMAILS: 'on' }, { logger: log.logger })
  })
  afterAll(() => t.close())

  it('masks in the logged labels and group key what DIAG_REDACT_* masks in stored alerts', async () => {
    const unlabelled = alert({ id: 'r-mail' }, { owner: 'jane.doe@example.com' }) as { labels: Record<string, string> }
    delete (unlabelled.labels as Partial<Record<string, string>>).severity
    const payload = webhook([unlabelled], { groupKey: '{}:{owner="jane.doe@example.com"}' })
    const res = await t.call('POST', path, { json: payload, headers: { 'x-request-id': 'refusal-redacted-email' } })
    expect(res.status).toBe(400)
    const line = await log.waitFor(
      (l) => l.reqId === 'refusal-redacted-email' && /^refused a webhook/.test(l.msg),
      'the refusal line',
    )
    expect(line.labels).toHaveProperty('owner')
    expect(JSON.stringify(line)).not.toContain('jane.doe@example.com')
  })
})
