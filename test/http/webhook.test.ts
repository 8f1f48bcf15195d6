import { createHash } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, requiredLabels, webhook } from '../helpers/alerts.js'
import { build, type TestService, testToken } from '../helpers/build.js'

const path = '/api/v1/alerts/alertmanager'

function expectError(
  res: { status: number; json: () => any; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/json/)
  const body = res.json()
  expect(body.error).toBe(code)
  expect(typeof body.message).toBe('string')
  // D7: no stack traces, SQL or file paths in any body.
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE|\/work\/|node_modules/)
  // A schema error is said in words (src/schema-words.ts), never in ajv's regular expressions.
  expect(JSON.stringify(body)).not.toMatch(/must match pattern|must have required property|must NOT/)
  return body
}

describe('POST /api/v1/alerts/alertmanager', () => {
  let t: TestService
  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())

  const counts = async () => ({
    events: await t.count('events'),
    incidents: await t.count('incidents'),
    queue: await t.count('queue_items'),
  })

  it('answers 202 with the body of the spec after storing event, incident and queue item', async () => {
    const before = await counts()
    const res = await t.call('POST', path, { json: webhook([alert({ id: 'aa01' })]) })
    expect(res.status).toBe(202)
    const body = res.json()
    expect(body).toMatchObject({ status: 'accepted', received: 1, queued: 1, duplicates: 0 })
    expect(body.events).toEqual([
      {
        eventId: expect.any(String),
        fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
        status: 'firing',
        duplicate: false,
        transition: 'opened',
        incidentId: expect.any(String),
      },
    ])
    expect(await counts()).toEqual({
      events: before.events + 1,
      incidents: before.incidents + 1,
      queue: before.queue + 1,
    })
    const [row] = (await t.rows('SELECT * FROM events WHERE id = ?', body.events[0].eventId)) as any[]
    expect(row).toMatchObject({ status: 'firing', instance: 'app-01', principal: 'default' })
    expect(row.identity).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.parse(row.alert).annotations.summary).toBe('Health check failing')
  })

  it('answers a duplicate with 202 and stores nothing twice (D11)', async () => {
    const payload = webhook([alert({ id: 'dup01' })])
    const first = (await t.call('POST', path, { json: payload })).json()
    const before = await counts()
    const res = await t.call('POST', path, { json: payload })
    expect(res.status).toBe(202)
    expect(res.json()).toMatchObject({ received: 1, queued: 0, duplicates: 1 })
    expect(res.json().events[0]).toEqual({ ...first.events[0], duplicate: true, transition: 'duplicate' })
    expect(await counts()).toEqual(before)
  })

  it('splits a payload into one event per alert, applied in order', async () => {
    const before = await counts()
    const firing = alert({}, { appserver_instance: 'app-02' })
    const res = await t.call('POST', path, {
      json: webhook([firing, alert({ status: 'resolved' }, { appserver_instance: 'app-02' }), firing]),
    })
    expect(res.status).toBe(202)
    const body = res.json()
    // In order: the firing opens, the resolution closes, and the firing again (same start,
    // after its resolution) re-opens the incident as a re-fire.
    expect(body).toMatchObject({ received: 3, queued: 3, duplicates: 0 })
    expect(body.events.map((e: { transition: string }) => e.transition)).toEqual(['opened', 'resolved', 'refired'])
    expect(new Set(body.events.map((e: { fingerprint: string }) => e.fingerprint)).size).toBe(1)
    expect(new Set(body.events.map((e: { incidentId: string }) => e.incidentId)).size).toBe(1)
    expect((await counts()).events).toBe(before.events + 3)
    const again = (await t.call('POST', path, { json: webhook([firing, firing]) })).json()
    expect(again).toMatchObject({ received: 2, queued: 0, duplicates: 2 })
  })

  it("accepts Alertmanager's real extra fields (notification_reason, routeLabels, endsAt, generatorURL)", async () => {
    const res = await t.call('POST', path, {
      json: webhook(
        [
          alert({
            fingerprint: 'extra01',
            endsAt: '0001-01-01T00:00:00Z',
            generatorURL: 'http://prometheus:9090/graph?g0.expr=up',
          }),
        ],
        { notification_reason: 'new_alerts', routeLabels: { team: 'sre' } },
      ),
    })
    expect(res.status).toBe(202)
  })

  it.each(requiredLabels)('answers 400 invalid_alert_payload without label %s and stores nothing', async (label) => {
    const bad = alert({ id: `missing-${label}` })
    delete (bad.labels as Record<string, string>)[label]
    const before = await counts()
    const res = await t.call('POST', path, { json: webhook([alert({ id: 'ok-sibling' }), bad]) })
    const body = expectError(res, 400, 'invalid_alert_payload')
    expect(body.details).toContainEqual({ path: `/alerts/1/labels/${label}`, message: 'is missing' })
    expect(await counts()).toEqual(before)
  })

  it.each([
    ['malformed JSON', '{"receiver": "x", ', 'application/json'],
    ['an empty body', '', 'application/json'],
    ['a JSON array', '[]', 'application/json'],
    ['an invalid label name', JSON.stringify(webhook([alert({}, { 'bad-name': 'x' })])), 'application/json'],
    ['an unknown status', JSON.stringify(webhook([alert({ status: 'pending' })])), 'application/json'],
    ['a bad startsAt', JSON.stringify(webhook([alert({ startsAt: 'yesterday' })])), 'application/json'],
    ['no alerts', JSON.stringify(webhook([])), 'application/json'],
  ])('answers 400 invalid_alert_payload for %s and stores nothing', async (_name, body, type) => {
    const before = await counts()
    const res = await t.call('POST', path, { body, headers: { 'content-type': type } })
    expectError(res, 400, 'invalid_alert_payload')
    expect(await counts()).toEqual(before)
  })

  it('says in words what a refused value must be, and quotes a label name short', async () => {
    const before = await counts()
    const refused = async (payload: unknown) => {
      const res = await t.call('POST', path, { json: payload })
      const body = expectError(res, 400, 'invalid_alert_payload')
      expect(body.message).toBe('The request body does not match the schema.')
      // The answer never grows with what was sent.
      expect(res.text.length).toBeLessThan(1000)
      return body.details
    }
    expect(await refused(webhook([alert({ fingerprint: 'not-hex!' })]))).toEqual([
      { path: '/alerts/0/fingerprint', message: 'must be 1 to 128 letters and digits' },
    ])
    expect(await refused(webhook([alert({ startsAt: 'yesterday' })]))).toEqual([
      { path: '/alerts/0/startsAt', message: 'must be an RFC 3339 date and time, like 2026-11-22T05:00:00Z' },
    ])
    expect(await refused(webhook([alert({ status: 'pending' })]))).toEqual([
      { path: '/alerts/0/status', message: 'must be one of: firing, resolved' },
    ])
    const labelWords = 'must be letters, digits and underscores that do not start with a digit, like appserver_instance'
    expect(await refused(webhook([alert({}, { 'bad-name': 'x' })]))).toEqual([
      { path: '/alerts/0/labels', message: `the field name "bad-name" ${labelWords}` },
    ])
    expect(await refused(webhook([alert({}, { ['1'.repeat(300)]: 'x' })]))).toEqual([
      {
        path: '/alerts/0/labels',
        message: `the field name "${'1'.repeat(56)}..." must be at most 256 characters long`,
      },
      { path: '/alerts/0/labels', message: `the field name "${'1'.repeat(56)}..." ${labelWords}` },
    ])
    expect(await counts()).toEqual(before)
  })

  // Repeated bodies are parsed and validated once (src/http/alerts/repeated-bodies.ts): a
  // refused body must be refused the same way every time it comes back.
  it.each([
    ['a missing label', JSON.stringify(webhook([{ ...alert({ id: 'rep' }), labels: { alertname: 'x' } }]))],
    ['prototype poisoning', `{"__proto__": {"admin": true}, ${JSON.stringify(webhook([alert()])).slice(1)}`],
    [
      'constructor poisoning',
      `{"constructor": {"prototype": {"admin": true}}, ${JSON.stringify(webhook([alert()])).slice(1)}`,
    ],
  ])('answers a repeated body with %s 400 each time, with the same details', async (_name, body) => {
    const before = await counts()
    const answers = []
    for (let i = 0; i < 3; i++) {
      const res = await t.call('POST', path, { body, headers: { 'content-type': 'application/json' } })
      answers.push(expectError(res, 400, 'invalid_alert_payload'))
    }
    expect(answers[1]).toEqual(answers[0])
    expect(answers[2]).toEqual(answers[0])
    expect(await counts()).toEqual(before)
  })

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-0123456789' }],
    ['a Basic scheme', { authorization: `Basic ${Buffer.from(`x:${testToken}`).toString('base64')}` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('answers 401 unauthorized for %s, with WWW-Authenticate, and stores nothing', async (_name, headers) => {
    const before = await counts()
    const res = await t.call('POST', path, {
      json: webhook([alert({ id: 'unauth' })]),
      headers: { authorization: '', ...headers },
    })
    expectError(res, 401, 'unauthorized')
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/)
    expect(await counts()).toEqual(before)
  })

  it('answers 413 for a body over 256 KiB, with Content-Length or chunked, and stores nothing', async () => {
    const big = JSON.stringify(webhook([alert({ id: 'big', annotations: { blob: 'x'.repeat(60_000) } })]))
    const padded = JSON.stringify(
      webhook(Array.from({ length: 6 }, (_, i) => alert({ id: `big${i}`, annotations: { blob: 'x'.repeat(50_000) } }))),
    )
    expect(Buffer.byteLength(big)).toBeLessThan(256 * 1024)
    expect(Buffer.byteLength(padded)).toBeGreaterThan(256 * 1024)
    const before = await counts()
    const plain = await t.call('POST', path, { body: padded, headers: { 'content-type': 'application/json' } })
    expectError(plain, 413, 'payload_too_large')
    const chunked = await t.call('POST', path, {
      body: padded,
      chunked: true,
      headers: { 'content-type': 'application/json' },
    })
    expectError(chunked, 413, 'payload_too_large')
    expect(await counts()).toEqual(before)
    // Just under the limit, chunked, is fine.
    const ok = await t.call('POST', path, { body: big, chunked: true, headers: { 'content-type': 'application/json' } })
    expect(ok.status).toBe(202)
  })

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['no Content-Type', {}],
  ])('answers 415 unsupported_media_type for %s and stores nothing', async (_name, headers) => {
    const before = await counts()
    const res = await t.call('POST', path, { body: JSON.stringify(webhook([alert({ id: 'mt' })])), headers })
    expectError(res, 415, 'unsupported_media_type')
    expect(await counts()).toEqual(before)
  })

  it('accepts application/json with a charset parameter', async () => {
    const res = await t.call('POST', path, {
      body: JSON.stringify(webhook([alert({ id: 'charset' })])),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
    expect(res.status).toBe(202)
  })

  it('answers 404 not_found in the D7 shape for an unknown API path', async () => {
    expectError(await t.call('GET', '/api/v1/nothing-here'), 404, 'not_found')
  })
})

describe('authentication with a tokens file (D5)', () => {
  let t: TestService
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diag-tokens-'))
    const file = join(dir, 'tokens.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'alertmanager', token: 'alertmanager-token-0001' },
        { name: 'hashed', sha256: createHash('sha256').update('hashed-token-000000001').digest('hex') },
        { name: 'retired', token: 'retired-token-00000001', expiresAt: '2020-01-01T00:00:00Z' },
      ]),
    )
    t = await build({ DIAG_API_TOKENS_FILE: file })
  })
  afterAll(() => t.close())

  it('accepts every valid token and records its name as the principal', async () => {
    for (const [token, name] of [
      ['alertmanager-token-0001', 'alertmanager'],
      ['hashed-token-000000001', 'hashed'],
      [testToken, 'default'],
    ] as const) {
      const res = await t.call('POST', path, {
        json: webhook([alert({ id: `p${name}` })]),
        headers: { authorization: `Bearer ${token}` },
      })
      expect(res.status).toBe(202)
      const [row] = (await t.rows('SELECT principal FROM events WHERE id = ?', res.json().events[0].eventId)) as any[]
      expect(row.principal).toBe(name)
    }
  })

  it('answers 401 for an expired token and stores nothing', async () => {
    const before = await t.count('events')
    const res = await t.call('POST', path, {
      json: webhook([alert({ id: 'expired' })]),
      headers: { authorization: 'Bearer retired-token-00000001' },
    })
    expectError(res, 401, 'unauthorized')
    expect(await t.count('events')).toBe(before)
  })
})

describe('back-pressure and rate limits (D9)', () => {
  it('answers 503 queue_full with Retry-After once the queue holds its capacity, storing nothing', async () => {
    const t = await build({ DIAG_QUEUE_CAPACITY: '2', DIAG_WORKER: 'off' })
    try {
      expect((await t.call('POST', path, { json: webhook([alert({ id: 'q1' })]) })).status).toBe(202)
      // Admitted below capacity, so all three alerts are taken even though that passes 2.
      const many = await t.call('POST', path, {
        json: webhook([alert({ id: 'q2' }), alert({ id: 'q3' }), alert({ id: 'q4' })]),
      })
      expect(many.status).toBe(202)
      expect(await t.count('queue_items')).toBe(4)
      const res = await t.call('POST', path, { json: webhook([alert({ id: 'q5' })]) })
      const body = expectError(res, 503, 'queue_full')
      expect(body.message).toMatch(/queue/)
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      expect(await t.count('events')).toBe(4)
      expect(await t.count('queue_items')).toBe(4)
    } finally {
      await t.close()
    }
  })

  it('never answers an authenticated webhook 429, whatever the rate (Alertmanager drops a 4xx)', async () => {
    const t = await build({ DIAG_RATE_LIMIT_PER_MINUTE: '3', DIAG_QUEUE_CAPACITY: '1000' })
    try {
      for (let i = 0; i < 10; i++) {
        expect((await t.call('POST', path, { json: webhook([alert({ id: `r${i}` })]) })).status).toBe(202)
      }
      expect(await t.count('events')).toBe(10)
      // The same token is still limited on the rules API.
      for (let i = 0; i < 3; i++) expect((await t.call('GET', '/api/v1/rules')).status).toBe(200)
      const res = await t.call('GET', '/api/v1/rules')
      expectError(res, 429, 'rate_limited')
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      expect((await t.call('POST', path, { json: webhook([alert({ id: 'r10' })]) })).status).toBe(202)
    } finally {
      await t.close()
    }
  })

  it('answers 429 rate_limited per address to requests without a valid token, storing nothing', async () => {
    const t = await build({ DIAG_ANONYMOUS_RATE_LIMIT_PER_MINUTE: '4' })
    try {
      const wrong = { headers: { authorization: 'Bearer wrong-token-0123456789' } }
      for (let i = 0; i < 3; i++) {
        expectError(await t.call('POST', path, { ...wrong, json: webhook([alert()]) }), 401, 'unauthorized')
      }
      expect((await t.call('GET', '/health/live', { headers: { authorization: '' } })).status).toBe(200)
      const res = await t.call('POST', path, { ...wrong, json: webhook([alert()]) })
      expectError(res, 429, 'rate_limited')
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      expectError(await t.call('GET', '/health/ready', { headers: { authorization: '' } }), 429, 'rate_limited')
      // A valid token is not limited by the address's failures.
      expect((await t.call('POST', path, { json: webhook([alert({ id: 'ok' })]) })).status).toBe(202)
      expect(await t.count('events')).toBe(1)
    } finally {
      await t.close()
    }
  })

  it('answers 503 not_ready while shutting down, storing nothing (D28)', async () => {
    const t = await build()
    try {
      t.service.readiness.set('shutting_down')
      const res = await t.call('POST', path, { json: webhook([alert({ id: 'late' })]) })
      expectError(res, 503, 'not_ready')
      expect(await t.count('events')).toBe(0)
      const ready = await t.call('GET', '/health/ready')
      expect(ready.status).toBe(503)
      expect(ready.json()).toEqual({ status: 'DOWN', reason: 'shutting_down' })
    } finally {
      await t.close()
    }
  })
})
