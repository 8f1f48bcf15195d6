import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { scrapeUntil } from '../helpers/metrics.js'

// A full queue that does not drain makes the replica unready, so that
// traffic goes elsewhere; a full queue that drains is back-pressure and stays ready.
describe('readiness while the queue is full and not draining', () => {
  let t: TestService
  beforeAll(async () => {
    // No worker: nothing drains until the test finishes an item itself.
    t = await build({ DIAG_WORKER: 'off', DIAG_QUEUE_CAPACITY: '2', DIAG_QUEUE_STALL_SECONDS: '1' })
  })
  afterAll(() => t.close())

  const ready = async () => {
    const res = await t.call('GET', '/health/ready', { headers: { authorization: '' } })
    return `${res.status} ${res.text}`
  }

  it('turns DOWN with queue_stalled, and UP again once an event finishes', async () => {
    expect(await ready()).toBe('200 {"status":"UP"}')
    const posted = await t.call('POST', '/api/v1/alerts/alertmanager', {
      json: webhook([alert({ id: 'stall1' }), alert({ id: 'stall2' })]),
    })
    expect(posted.status).toBe(202)
    await scrapeUntil(ready, /^503 \{"status":"DOWN","reason":"queue_stalled"\}$/)
    await scrapeUntil(async () => (await t.call('GET', '/metrics')).text, /^diagnostic_service_ready 0$/m)
    // The API still answers: webhooks get the retryable queue_full, reads work.
    const refused = await t.call('POST', '/api/v1/alerts/alertmanager', {
      json: webhook([alert({ id: 'stall3' })]),
    })
    expect(refused.status).toBe(503)
    expect(refused.json().error).toBe('queue_full')
    expect((await t.call('GET', '/api/v1/rules')).status).toBe(200)

    await t.rows("UPDATE queue_items SET status = 'done' WHERE id = (SELECT min(id) FROM queue_items)")
    await scrapeUntil(ready, /^200 \{"status":"UP"\}$/)
  })
})
