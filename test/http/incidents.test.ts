import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { waitFor } from '../helpers/smtp.js'

const path = '/api/v1/incidents'

describe('incidents API (D30) and housekeeping (D22)', () => {
  let t: TestService
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    t = await build()
    const post = (payload: unknown) => t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
    await post(webhook([alert({ id: 'inc0001', startsAt: '2026-11-22T04:56:00.000Z' })]))
    await post(
      webhook([alert({ id: 'inc0002', startsAt: '2026-11-22T04:57:30.000Z' }, { appserver_instance: 'app-02' })]),
    )
    await post(webhook([alert({ id: 'inc0003' }, { appserver_instance: 'app-99' })]))
    const diagnosed = async () => (await t.rows("SELECT id FROM outbox WHERE status = 'sent'")).length === 3
    await waitFor(diagnosed, 20_000, 'three diagnoses delivered')
    const byInstance: Record<string, string> = { 'app-01': 'inc0001', 'app-02': 'inc0002', 'app-99': 'inc0003' }
    for (const row of (await t.rows('SELECT id, instance FROM incidents')) as Array<{ id: string; instance: string }>) {
      ids[byInstance[row.instance] as string] = row.id
    }
  })
  afterAll(() => t.close())

  it('lists incidents newest first with their diagnosis headline', async () => {
    const res = await t.call('GET', path)
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body.nextCursor).toBeNull()
    expect(body.incidents.map((i: { instance: string }) => i.instance).sort()).toEqual(['app-01', 'app-02', 'app-99'])
    const app01 = body.incidents.find((i: { instance: string }) => i.instance === 'app-01')
    expect(app01).toMatchObject({
      status: 'open',
      alertname: 'AppServerDown',
      startsAt: '2026-11-22T04:56:00.000Z',
      diagnosis: {
        branch: 'TD-02',
        ruleName: 'JavaHeapExhausted',
        category: 'jvm_memory',
        // One OutOfMemoryError line in examples/logs/app-01, and nothing corroborates it.
        classification: 'probable_cause',
      },
    })
  })

  it.each([
    ['?instance=app-02', ['app-02']],
    ['?category=jvm_memory', ['app-01', 'app-02']],
    ['?category=general', ['app-99']],
    ['?status=resolved', []],
    ['?since=2099-01-01T00:00:00Z', []],
  ])('filters %s', async (query, instances) => {
    const body = (await t.call('GET', `${path}${query}`)).json()
    expect(body.incidents.map((i: { instance: string }) => i.instance).sort()).toEqual(instances)
  })

  it('paginates with an opaque cursor, each incident exactly once', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const res = await t.call('GET', `${path}?limit=1${cursor ? `&cursor=${cursor}` : ''}`)
      const body: { incidents: Array<{ id: string }>; nextCursor: string | null } = res.json()
      seen.push(...body.incidents.map((i) => i.id))
      cursor = body.nextCursor
    } while (cursor)
    expect(seen).toHaveLength(3)
    expect(new Set(seen).size).toBe(3)
  })

  it.each([
    '?status=closed',
    '?limit=0',
    '?limit=201',
    '?since=yesterday',
    '?cursor=bm9wZQ',
    '?category=memory',
    '?sort=asc',
  ])('answers 400 invalid_query_parameter for %s', async (query) => {
    const res = await t.call('GET', `${path}${query}`)
    expect(res.status).toBe(400)
    expect(res.json().error).toBe('invalid_query_parameter')
    // In words (src/schema-words.ts), never ajv's regular expression.
    expect(res.text).not.toMatch(/must match pattern|must NOT/)
  })

  it('says what a refused page size must be, in words', async () => {
    expect((await t.call('GET', `${path}?limit=0`)).json()).toEqual({
      error: 'invalid_query_parameter',
      message: 'A query parameter is invalid.',
      details: [{ path: '/limit', message: 'must be a whole number from 1 to 200' }],
    })
  })

  it('shows one incident with its alert, evidence, diagnosis and delivery state', async () => {
    const res = await t.call('GET', `${path}/${ids.inc0002}`)
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({
      id: ids.inc0002,
      instance: 'app-02',
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      resolvedAt: null,
      events: [{ status: 'firing', transition: 'opened', alert: { labels: { appserver_instance: 'app-02' } } }],
      diagnosis: { primary: { branch: 'AH-01', ruleName: 'ContainerOomKilled' } },
      evidence: {
        instanceKnown: true,
        spool: {
          records: [
            expect.objectContaining({ oomKilled: true, exitCode: 137 }),
            expect.objectContaining({ event: 'start' }),
          ],
        },
      },
      delivery: [
        {
          kind: 'diagnosis',
          status: 'sent',
          attempts: 1,
          subject: '[critical] AppServerDown on app-02: AH-01 ContainerOomKilled (jvm_memory)',
        },
      ],
    })
    // The response schema drops nothing the repository gives.
    const { nextEvents, ...stored } = (await t.service.storage.incidents.get(ids.inc0002 as string)) ?? {}
    expect(nextEvents).toBeNull()
    expect(body).toEqual({ ...JSON.parse(JSON.stringify(stored)), nextEventsCursor: null })
  })

  it('shows a resolution and its recovery e-mail', async () => {
    await t.call('POST', '/api/v1/alerts/alertmanager', {
      json: webhook([alert({ id: 'inc0001', status: 'resolved', startsAt: '2026-11-22T04:56:00.000Z' })], {
        status: 'resolved',
      }),
    })
    let body: any
    const deadline = Date.now() + 20_000
    do {
      body = (await t.call('GET', `${path}/${ids.inc0001}`)).json()
      if (body.delivery.length === 2 && body.delivery[1].status === 'sent') break
      await new Promise((resolve) => setTimeout(resolve, 50))
    } while (Date.now() < deadline)
    expect(body).toMatchObject({
      status: 'resolved',
      events: [
        { status: 'firing', transition: 'opened' },
        { status: 'resolved', transition: 'resolved' },
      ],
    })
    expect(body.delivery.map((d: { kind: string }) => d.kind)).toEqual(['diagnosis', 'recovery'])
    expect((await t.call('GET', `${path}?status=resolved`)).json().incidents).toHaveLength(1)
  })

  it('answers 404 for an unknown incident and 401 without a token', async () => {
    const missing = await t.call('GET', `${path}/01a20000-0000-7000-8000-000000000000`)
    expect(missing.status).toBe(404)
    expect(missing.json().error).toBe('not_found')
    expect((await t.call('GET', path, { headers: { authorization: '' } })).status).toBe(401)
  })

  it('prunes old events with everything they produced, never rules', async () => {
    const rulesBefore = await t.count('rules')
    await t.rows('UPDATE events SET received_at = 0 WHERE incident_id = ?', ids.inc0003)
    await t.rows('UPDATE incidents SET last_heard_at = 0 WHERE id = ?', ids.inc0003)
    expect(await t.service.housekeeping.runOnce()).toBe(2) // the event and its incident
    expect(await t.rows('SELECT id FROM incidents WHERE id = ?', ids.inc0003)).toEqual([])
    expect(await t.rows('SELECT id FROM events WHERE incident_id = ?', ids.inc0003)).toEqual([])
    expect(await t.count('outbox')).toBe(3)
    expect(await t.count('rules')).toBe(rulesBefore)
    const metrics = await scrapeUntil(
      async () => (await t.call('GET', '/metrics')).text,
      /^diagnostic_records_pruned_total 2$/m,
    )
    expect(metrics).toMatch(/^diagnostic_housekeeping_runs_total 2$/m)
  })
})

describe('housekeeping with events still waiting', () => {
  it('keeps an old event that the worker has not processed yet', async () => {
    const t = await build({ DIAG_WORKER: 'off' })
    try {
      await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert({ id: 'wait0001' })]) })
      await t.rows('UPDATE events SET received_at = 0')
      await t.rows('UPDATE incidents SET last_heard_at = 0')
      expect(await t.service.housekeeping.runOnce()).toBe(0)
      expect(await t.count('events')).toBe(1)
    } finally {
      await t.close()
    }
  })
})

describe('an incident with many events (docs/api.md, "One incident")', () => {
  let t: TestService
  let incidentId: string
  const cycles = 60
  // 40 KiB of annotation in each notification: the 120 events hold about 4.8 MB.
  const description = 'x'.repeat(40 * 1024)
  beforeAll(async () => {
    t = await build({ DIAG_WORKER: 'off', DIAG_QUEUE_CAPACITY: '1000' })
    const post = async (status: 'firing' | 'resolved', n: number) => {
      const payload = webhook(
        [alert({ id: 'many0001', status, annotations: { summary: `notification ${n}`, description } })],
        { status },
      )
      const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
      expect(res.status).toBe(202)
    }
    for (let n = 0; n < cycles; n++) {
      await post('firing', 2 * n)
      await post('resolved', 2 * n + 1)
    }
    incidentId = String((await t.rows('SELECT id FROM incidents'))[0]?.id)
  }, 60_000)
  afterAll(() => t.close())

  const stored = async () =>
    (await t.rows(
      'SELECT id, transition, alert FROM events WHERE incident_id = ? ORDER BY received_at, id',
      incidentId,
    )) as Array<{ id: string; transition: string; alert: string }>

  it('pages the events within the byte budget, each event exactly once and as stored', async () => {
    expect(await stored()).toHaveLength(2 * cycles)
    const seen: Array<{ id: string; transition: string; alert: { annotations: { summary: string } } }> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await t.call('GET', `${path}/${incidentId}?eventsLimit=200${cursor ? `&eventsCursor=${cursor}` : ''}`)
      expect(res.status).toBe(200)
      // Never megabytes: the events' alerts stop at 1 MiB a page.
      expect(Buffer.byteLength(res.text)).toBeLessThan(1.25 * 1024 * 1024)
      const body = res.json()
      expect(body.events.length).toBeGreaterThan(0)
      seen.push(...body.events)
      cursor = body.nextEventsCursor
      pages++
    } while (cursor)
    expect(pages).toBeGreaterThan(1)
    const rows = await stored()
    expect(seen.map((e) => e.id)).toEqual(rows.map((r) => r.id))
    expect(seen.map((e) => e.transition)).toEqual(rows.map((r) => r.transition))
    expect(seen.map((e) => e.alert.annotations.summary)).toEqual(rows.map((_, n) => `notification ${n}`))
    expect(seen.map((e) => e.alert)).toEqual(rows.map((r) => JSON.parse(r.alert)))
  })

  it('gives 50 events by default and eventsLimit at most, with a cursor to the rest', async () => {
    const first = (await t.call('GET', `${path}/${incidentId}?eventsLimit=7`)).json()
    expect(first.events).toHaveLength(7)
    expect(first.events[0].transition).toBe('opened')
    const second = (
      await t.call('GET', `${path}/${incidentId}?eventsLimit=7&eventsCursor=${first.nextEventsCursor}`)
    ).json()
    expect(second.events[0].id).toBe((await stored())[7]?.id)
    const byDefault = (await t.call('GET', `${path}/${incidentId}`)).json()
    expect(byDefault.events.length).toBeLessThanOrEqual(50)
    expect(byDefault.nextEventsCursor).toEqual(expect.any(String))
  })

  it.each(['?eventsLimit=0', '?eventsLimit=201', '?eventsCursor=bm9wZQ', '?limit=5'])(
    'answers 400 invalid_query_parameter for %s',
    async (query) => {
      const res = await t.call('GET', `${path}/${incidentId}${query}`)
      expect(res.status).toBe(400)
      expect(res.json().error).toBe('invalid_query_parameter')
    },
  )
})
