import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { capturedLog, levels } from '../helpers/log-capture.js'

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
    const line = await log.waitFor((l) => l.eventId === event.eventId, 'the unmatched resolution line')
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
})
