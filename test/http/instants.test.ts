import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { lifecycleService } from '../helpers/lifecycle.js'
import { scrapeUntil } from '../helpers/metrics.js'

// Issue 26, points 1 and 2, through the real HTTPS service: one instant written in every form
// the schema accepts is one occurrence; a start from a clock far ahead cannot poison the
// alert's later, real notifications (docs/design.md, "Instants" and "Incidents").

const kinds = (mails: Array<{ headers: Record<string, string> }>) => mails.map((m) => m.headers['x-diagnostic-kind'])
const firing = (id: string, startsAt: string) => webhook([alert({ id, startsAt })])
const resolved = (id: string, startsAt: string, endsAt: string) =>
  webhook([alert({ id, startsAt, status: 'resolved', endsAt })], { status: 'resolved' })
const at = (ms: number) => new Date(ms).toISOString()

describe('instants through the webhook', () => {
  let s: Awaited<ReturnType<typeof lifecycleService>>
  beforeAll(async () => {
    s = await lifecycleService({ DIAG_CLOCK_SKEW_SECONDS: '300' })
  })
  afterAll(() => s.close())

  it('files one instant written in every accepted form as one occurrence', async () => {
    const forms = [
      '2026-11-01T10:00:00Z',
      '2026-11-01t10:00:00.000000000z',
      '2026-11-01 10:00:00+00:00',
      '2026-11-01T12:00:00+02',
      '2026-11-01T12:00:00+0200',
      '2026-11-01T05:00:00.000-05:00',
    ]
    const events = []
    for (const form of forms) events.push(...(await s.post(firing('forms', form))))
    expect(events.map((e) => e.duplicate)).toEqual([false, true, true, true, true, true])
    expect(new Set(events.map((e) => e.incidentId)).size).toBe(1)
    const leap = await s.post(firing('leap', '2016-12-31T23:59:60Z'))
    const after = await s.post(firing('leap', '2017-01-01T00:00:00Z'))
    expect(after[0]).toMatchObject({ duplicate: true, incidentId: leap[0]?.incidentId })
  })

  it('refuses a form the parser cannot read with 400 and stores nothing', async () => {
    const before = await s.count('SELECT count(*) FROM events')
    const res = await s.t.call('POST', '/api/v1/alerts/alertmanager', {
      json: firing('tab', '2026-11-01\t10:00:00Z'),
    })
    expect(res.status).toBe(400)
    expect(res.json()).toMatchObject({ error: 'invalid_alert_payload' })
    expect(await s.count('SELECT count(*) FROM events')).toBe(before)
  })

  it('reads the incidents filter `since` with the same parser', async () => {
    const all = (await s.t.call('GET', '/api/v1/incidents?since=2000-01-01T00:00:00Z')).json().incidents.length
    expect(all).toBeGreaterThan(0)
    const hoursOnly = await s.t.call('GET', `/api/v1/incidents?since=${encodeURIComponent('2000-01-01T01:00:00+01')}`)
    expect(hoursOnly.status).toBe(200)
    expect(hoursOnly.json().incidents).toHaveLength(all)
    const tab = await s.t.call('GET', `/api/v1/incidents?since=${encodeURIComponent('2000-01-01\t00:00:00Z')}`)
    expect(tab.status).toBe(400)
  })
})

describe('a clock far ahead (issue 26, point 2)', () => {
  let s: Awaited<ReturnType<typeof lifecycleService>>
  beforeAll(async () => {
    s = await lifecycleService({ DIAG_CLOCK_SKEW_SECONDS: '300' })
  })
  afterAll(() => s.close())

  const openIncidents = () => s.count("SELECT count(*) FROM incidents WHERE status = 'open'")

  it('a future start before the real firing: the real occurrence opens, resolves and gets its recovery', async () => {
    const real = Date.now() - 120_000
    const future = Date.now() + 5 * 365 * 86_400_000
    const [bogus] = await s.post(firing('ahead-first', at(future)))
    expect(bogus?.transition).toBe('opened')
    const [first] = await s.post(firing('ahead-first', at(real)))
    expect(first?.transition).toBe('opened')
    const [end] = await s.post(resolved('ahead-first', at(real), at(real + 60_000)))
    expect(end).toMatchObject({ transition: 'resolved', incidentId: first?.incidentId })
    await s.settled()
    expect(kinds(await s.mailsOfIncident(first?.incidentId as string))).toEqual(['diagnosis', 'recovery'])
    // The occurrence the wrong clock opened was closed by the real one: nothing stays open.
    expect(await s.incident(bogus?.incidentId as string)).toMatchObject({ status: 'superseded' })
    expect(await openIncidents()).toBe(0)
    // The report of the occurrence with the unbelieved start says so.
    const [report] = await s.mailsOfIncident(bogus?.incidentId as string)
    expect(report?.text).toMatch(/startsAt .* was not believed/)
  })

  it('a future start while the real occurrence is open changes nothing, and the resolution still mails', async () => {
    const real = Date.now() - 120_000
    const [first] = await s.post(firing('ahead-later', at(real)))
    const [bogus] = await s.post(firing('ahead-later', at(Date.now() + 86_400_000)))
    expect(bogus).toMatchObject({ duplicate: true, incidentId: first?.incidentId })
    const [end] = await s.post(resolved('ahead-later', at(real), at(real + 60_000)))
    expect(end).toMatchObject({ transition: 'resolved', incidentId: first?.incidentId })
    await s.settled()
    expect(kinds(await s.mailsOfIncident(first?.incidentId as string))).toEqual(['diagnosis', 'recovery'])
    expect(await openIncidents()).toBe(0)
  })

  it('an unbelieved occurrence resolves with a duration from when it was heard, never negative', async () => {
    const future = Date.now() + 30 * 86_400_000
    const [bogus] = await s.post(firing('ahead-alone', at(future)))
    const [end] = await s.post(resolved('ahead-alone', at(future), at(future + 60_000)))
    expect(end).toMatchObject({ transition: 'resolved', incidentId: bogus?.incidentId })
    await s.settled()
    const incident = await s.incident(bogus?.incidentId as string)
    // Its end, as far ahead as its start, is not believed either: the receipt stands in.
    expect(incident.ended_at as number).toBeLessThanOrEqual(Date.now())
    const recovery = (await s.mailsOfIncident(bogus?.incidentId as string))[1]
    // The duration ("after 0s") and how late the resolution came ("service 0s after it"), neither negative.
    expect(recovery?.text).toMatch(/resolved at \S+ after \d/)
    expect(recovery?.text).toMatch(/reached this service \d/)
    expect(await openIncidents()).toBe(0)
  })

  it('counts every timestamp it did not believe', async () => {
    const text = await scrapeUntil(
      () => s.t.call('GET', '/metrics').then((r) => r.text),
      /diagnostic_untrusted_timestamps_total\{field="startsAt"\} [3-9]/,
    )
    expect(text).toMatch(/diagnostic_untrusted_timestamps_total\{field="endsAt"\} [1-9]/)
  })
})
