import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService, testToken } from '../helpers/build.js'
import { capturedLog, levels } from '../helpers/log-capture.js'
import { validRule } from '../helpers/rule-input.js'
import { startSmtp } from '../helpers/smtp.js'

// The log lines an operator investigates from (docs/operations.md, "Reading the log"),
// read from the service's own pino output.

describe("the service's log", () => {
  const log = capturedLog()
  let t: TestService
  beforeAll(async () => {
    t = await build({ DIAG_LOG_LEVEL: 'info' }, { logger: log.logger })
  })
  afterAll(() => t.close())

  it("warns of a resolution for an occurrence never seen firing, with the alert's identity", async () => {
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', {
      json: webhook(
        [
          alert(
            { id: 'lonely', status: 'resolved', startsAt: '2026-11-01T09:00:00Z', endsAt: '2026-11-01T09:30:00Z' },
            { appserver_instance: 'app-07' },
          ),
        ],
        { status: 'resolved' },
      ),
    })
    expect(res.status).toBe(202)
    const [event] = res.json().events
    const line = await log.waitFor(
      (l) => l.eventId === event.eventId && l.level === levels.warn,
      'the unmatched resolution line',
    )
    expect(line).toMatchObject({
      level: levels.warn,
      alertname: 'AppServerDown',
      instance: 'app-07',
      fingerprint: event.fingerprint,
      incidentId: event.incidentId,
    })
    expect(line.msg).toMatch(/^a resolution for an occurrence never seen firing/)
  })

  it('warns of each occurrence closed as expired, with its identity and when it was last heard', async () => {
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', {
      json: webhook([alert({ id: 'silent' }, { appserver_instance: 'app-08' })]),
    })
    const [event] = res.json().events
    await t.rows('UPDATE incidents SET last_heard_at = ? WHERE id = ?', 1_000, event.incidentId)
    await t.service.housekeeping.runOnce()
    const line = await log.waitFor((l) => l.incidentId === event.incidentId && l.lastHeardAt !== undefined, 'expiry')
    expect(line).toMatchObject({
      level: levels.warn,
      component: 'housekeeping',
      alertname: 'AppServerDown',
      instance: 'app-08',
      fingerprint: event.fingerprint,
      lastHeardAt: '1970-01-01T00:00:01.000Z',
      expiryHours: 24,
    })
    expect(line.msg).toMatch(/^closed an open occurrence as expired/)
  })

  describe('request ids', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    const linesOf = (reqId: string) => log.lines.filter((l) => l.reqId === reqId).map((l) => l.msg)

    it("honours a caller's X-Request-Id, echoes it, and logs the request under it", async () => {
      const res = await t.call('GET', '/api/v1/incidents', { headers: { 'x-request-id': 'proxy-7f3a:01/abc=' } })
      expect(res.status).toBe(200)
      expect(res.headers['x-request-id']).toBe('proxy-7f3a:01/abc=')
      await log.waitFor((l) => l.reqId === 'proxy-7f3a:01/abc=' && l.msg === 'request completed', 'completed')
      expect(linesOf('proxy-7f3a:01/abc=')).toEqual(['incoming request', 'request completed'])
    })

    it('gives a random UUID instead of an id that is too long or has other characters, on errors too', async () => {
      for (const given of ['x'.repeat(129), 'two words', 'quote"d', 'semi;colon']) {
        const res = await t.call('GET', '/api/v1/no-such-route', { headers: { 'x-request-id': given } })
        expect(res.status).toBe(404)
        expect(res.headers['x-request-id']).toMatch(uuid)
        expect(log.lines.some((l) => l.reqId === given)).toBe(false)
      }
    })

    it('is unique across requests and across restarts (never a counter from 1)', async () => {
      const other = await build({ DIAG_LOG_LEVEL: 'info' })
      try {
        const ids = [
          ...(await Promise.all([1, 2, 3].map(() => t.call('GET', '/health/live')))),
          ...(await Promise.all([1, 2, 3].map(() => other.call('GET', '/health/live')))),
        ].map((res) => res.headers['x-request-id'])
        for (const id of ids) expect(id).toMatch(uuid)
        expect(new Set(ids).size).toBe(6)
      } finally {
        await other.close()
      }
    })
  })
})

describe('the lines of one alert, from the webhook to the mail', () => {
  const post = (t: TestService, id: string, instance: string) =>
    t
      .call('POST', '/api/v1/alerts/alertmanager', {
        json: webhook([alert({ id, startsAt: new Date().toISOString() }, { appserver_instance: instance })]),
      })
      .then((res) => res.json().events[0] as { eventId: string; incidentId: string })

  it('carries the event id, alertname and instance on every ingest, worker, evidence and mail line', async () => {
    const smtp = await startSmtp()
    const log = capturedLog()
    const t = await build({ DIAG_LOG_LEVEL: 'info', DIAG_SMTP_URL: smtp.url }, { logger: log.logger })
    try {
      const event = await post(t, 'traced', 'app-01')
      await log.waitFor((l) => l.eventId === event.eventId && l.msg === 'e-mail sent', 'the mail line', 30_000)
      const lines = log.lines.filter((l) => l.eventId === event.eventId)
      expect(lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining(['alert stored', 'evidence gathered', 'event processed', 'e-mail sent']),
      )
      for (const line of lines) expect(line).toMatchObject({ alertname: 'AppServerDown', instance: 'app-01' })
      expect(lines.find((l) => l.msg === 'alert stored')).toMatchObject({
        transition: 'opened',
        incidentId: event.incidentId,
        reqId: expect.any(String),
      })
      expect(lines.find((l) => l.msg === 'evidence gathered')).toMatchObject({
        component: 'worker',
        instanceKnown: true,
        incidentId: event.incidentId,
        logs: [expect.objectContaining({ file: expect.any(String), lines: expect.any(Number) })],
      })
      expect(lines.find((l) => l.msg === 'e-mail sent')).toMatchObject({
        level: levels.info,
        component: 'mail',
        kind: 'diagnosis',
        attempts: 1,
        messageId: smtp.mails[0]?.headers['message-id'],
      })
    } finally {
      await t.close()
      await smtp.close()
    }
  })

  it('says when a mail fails for good, with its alert', async () => {
    const smtp = await startSmtp({ reject: 550 })
    const log = capturedLog()
    const t = await build({ DIAG_LOG_LEVEL: 'info', DIAG_SMTP_URL: smtp.url }, { logger: log.logger })
    try {
      const event = await post(t, 'refused-mail', 'app-02')
      const line = await log.waitFor(
        (l) => l.eventId === event.eventId && l.msg === 'e-mail delivery failed for good',
        'the failure line',
        30_000,
      )
      expect(line).toMatchObject({
        level: levels.error,
        alertname: 'AppServerDown',
        instance: 'app-02',
        kind: 'diagnosis',
        attempts: 1,
        reason: expect.stringContaining('550'),
      })
    } finally {
      await t.close()
      await smtp.close()
    }
  })

  it('says which migrations a start ran, even with the log at warn', async () => {
    const log = capturedLog('warn')
    // On a new SQLite file, whatever DIAG_TEST_STORAGE says: the PostgreSQL databases of the
    // tests are migrated before a service starts (test/store/migrations.conformance.test.ts).
    const t = await build({ DIAG_LOG_LEVEL: 'warn', DIAG_DATABASE_URL: '' }, { logger: log.logger })
    await t.close()
    const migrations = log.named('migration applied')
    expect(migrations.length).toBeGreaterThan(0)
    expect(migrations[0]).toMatchObject({
      level: levels.info,
      component: 'storage',
      database: 'sqlite',
      version: 1,
      name: expect.stringMatching(/^0001_\w+\.sql$/),
      ms: expect.any(Number),
    })
  })

  it('says which token registered a rule: its name, never the token', async () => {
    const log = capturedLog()
    const t = await build({ DIAG_LOG_LEVEL: 'info' }, { logger: log.logger })
    try {
      const res = await t.call('POST', '/api/v1/rules', { json: validRule() })
      expect(res.status).toBe(201)
      expect(log.named('rule registered')).toEqual([
        expect.objectContaining({ ruleId: res.json().id, branch: 'TD-19', tokenName: 'default' }),
      ])
      expect(JSON.stringify(log.lines)).not.toContain(testToken)
    } finally {
      await t.close()
    }
  })
})
