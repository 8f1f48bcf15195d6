import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { lifecycleService } from '../helpers/lifecycle.js'
import { scrapeUntil } from '../helpers/metrics.js'
import { waitFor } from '../helpers/smtp.js'

// One test per way the incident lifecycle used to lose track (docs/design.md, "Incidents").

const kinds = (mails: Array<{ headers: Record<string, string> }>) => mails.map((m) => m.headers['x-diagnostic-kind'])
const firing = (id: string, startsAt: string, extra: Record<string, unknown> = {}) =>
  webhook([alert({ id, startsAt, ...extra })])
const resolved = (id: string, startsAt: string, extra: Record<string, unknown> = {}) =>
  webhook([alert({ id, startsAt, status: 'resolved', ...extra })], { status: 'resolved' })

describe('incident lifecycle', () => {
  let s: Awaited<ReturnType<typeof lifecycleService>>
  let slowProbe: Server
  beforeAll(async () => {
    // A health endpoint that answers after 1.5 s keeps a diagnosis running that long.
    slowProbe = createServer((_req, res) => setTimeout(() => res.end('UP'), 1500).unref())
    await new Promise<void>((resolve) => slowProbe.listen(0, '127.0.0.1', resolve))
    const dir = mkdtempSync(join(tmpdir(), 'diag-lifecycle-'))
    const inventory = join(dir, 'inventory.json')
    const { port } = slowProbe.address() as AddressInfo
    writeFileSync(inventory, JSON.stringify({ instances: { 'slow-01': { healthUrl: `http://127.0.0.1:${port}/` } } }))
    s = await lifecycleService({ DIAG_INVENTORY: inventory, DIAG_HTTP_TIMEOUT_MS: '5000' })
  })
  afterAll(async () => {
    await s.close()
    slowProbe.close()
  })

  it('takes one instant written three ways as one occurrence', async () => {
    const [first] = await s.post(firing('instant', '2026-11-01T12:00:00+02:00'))
    const [second] = await s.post(firing('instant', '2026-11-01T10:00:00Z'))
    const [third] = await s.post(firing('instant', '2026-11-01T10:00:00.000Z'))
    expect([first?.duplicate, second?.duplicate, third?.duplicate]).toEqual([false, true, true])
    await s.settled()
    expect(await s.count('SELECT count(*) FROM incidents WHERE id = ?', first?.incidentId)).toBe(1)
    expect(await s.count('SELECT count(*) FROM events WHERE incident_id = ?', first?.incidentId)).toBe(1)
    expect(kinds(await s.mailsOfIncident(first?.incidentId as string))).toEqual(['diagnosis'])
  })

  it('records a firing that arrives after its own resolution as resolved', async () => {
    const [resolution] = await s.post(resolved('late', '2026-11-01T10:00:00Z', { endsAt: '2026-11-01T10:05:00Z' }))
    const [late] = await s.post(firing('late', '2026-11-01T10:00:00Z'))
    expect(late).toMatchObject({ transition: 'late_firing', incidentId: resolution?.incidentId })
    const [again] = await s.post(resolved('late', '2026-11-01T10:00:00Z', { endsAt: '2026-11-01T10:05:00Z' }))
    expect(again?.duplicate).toBe(true)
    await s.settled()
    const incident = await s.incident(late?.incidentId as string)
    expect(incident).toMatchObject({ status: 'resolved', ended_at: Date.parse('2026-11-01T10:05:00Z') })
    const mails = await s.mailsOfIncident(late?.incidentId as string)
    expect(kinds(mails)).toEqual(['diagnosis'])
    expect(mails[0]?.subject).toMatch(/^\[critical\] Ended: AppServerDown on app-01/)
    expect(mails[0]?.text).toContain('This alert had already resolved at 2026-11-01T10:05:00.000Z')
  })

  it('ends an occurrence when a newer one starts, and closes only its own on resolution', async () => {
    const [t1] = await s.post(firing('newer', '2026-11-01T10:00:00Z'))
    const [t2] = await s.post(firing('newer', '2026-11-01T11:00:00Z'))
    expect(t2?.incidentId).not.toBe(t1?.incidentId)
    await s.post(resolved('newer', '2026-11-01T11:00:00Z', { endsAt: '2026-11-01T11:30:00Z' }))
    const [t3] = await s.post(resolved('newer', '2026-11-01T12:00:00Z', { endsAt: '2026-11-01T12:10:00Z' }))
    await s.settled()
    expect(await s.incident(t1?.incidentId as string)).toMatchObject({
      status: 'superseded',
      superseded_by: t2?.incidentId,
      ended_at: Date.parse('2026-11-01T11:00:00Z'),
    })
    expect(await s.incident(t2?.incidentId as string)).toMatchObject({ status: 'resolved' })
    expect(t3).toMatchObject({ transition: 'unmatched_resolution' })
    expect(t3?.incidentId).not.toBe(t1?.incidentId)
    expect(kinds(await s.mailsOfIncident(t1?.incidentId as string))).toEqual(['diagnosis'])
    expect(kinds(await s.mailsOfIncident(t2?.incidentId as string))).toEqual(['diagnosis', 'recovery'])
  })

  it('sends the recovery for a resolution whose start Alertmanager merged to an earlier one', async () => {
    // amtool's --start has whole seconds: the re-sent alert starts before the one that fired.
    const [fired] = await s.post(firing('merged', '2026-11-01T10:00:00.700Z'))
    const [ended] = await s.post(resolved('merged', '2026-11-01T10:00:00Z', { endsAt: '2026-11-01T10:05:00Z' }))
    expect(ended).toMatchObject({ duplicate: false, transition: 'resolved_merged', incidentId: fired?.incidentId })
    await s.settled()
    expect(await s.incident(fired?.incidentId as string)).toMatchObject({
      status: 'resolved',
      ended_at: Date.parse('2026-11-01T10:05:00Z'),
    })
    const mails = await s.mailsOfIncident(fired?.incidentId as string)
    expect(kinds(mails)).toEqual(['diagnosis', 'recovery'])
    expect(mails[1]?.headers['in-reply-to']).toBe(mails[0]?.headers['message-id'])
    expect(mails[1]?.subject).toMatch(/^\[RESOLVED\] AppServerDown on app-01/)
  })

  it('closes an occurrence no longer heard as expired, and still sends its recovery when the resolution comes', async () => {
    const [fired] = await s.post(firing('expiry', '2026-11-01T10:00:00Z'))
    await s.settled()
    // Unheard for longer than DIAG_INCIDENT_EXPIRY_HOURS (24 by default).
    const lastHeard = Date.now() - 25 * 3_600_000
    await s.rows('UPDATE incidents SET last_heard_at = ? WHERE id = ?', lastHeard, fired?.incidentId)
    await s.t.service.housekeeping.runOnce()
    expect(await s.incident(fired?.incidentId as string)).toMatchObject({ status: 'expired', ended_at: lastHeard })
    const api = (await s.t.call('GET', '/api/v1/incidents?status=expired')).json()
    expect(api.incidents.map((i: { id: string }) => i.id)).toContain(fired?.incidentId)
    await scrapeUntil(
      async () => (await s.t.call('GET', '/metrics')).text,
      /^diagnostic_alert_transitions_total\{transition="expired"\} [1-9]/m,
    )
    const [ended] = await s.post(resolved('expiry', '2026-11-01T10:00:00Z', { endsAt: '2026-11-01T12:00:00Z' }))
    expect(ended).toMatchObject({ transition: 'resolved', incidentId: fired?.incidentId })
    await s.settled()
    expect(kinds(await s.mailsOfIncident(fired?.incidentId as string))).toEqual(['diagnosis', 'recovery'])
  })

  it('re-opens an occurrence that fires again after its resolution, and reports the re-fire', async () => {
    const [opened] = await s.post(firing('refire', '2026-11-01T10:00:00Z'))
    await s.post(resolved('refire', '2026-11-01T10:00:00Z', { endsAt: '2026-11-01T10:20:00Z' }))
    const [refired] = await s.post(firing('refire', '2026-11-01T10:00:00Z'))
    expect(refired).toMatchObject({ duplicate: false, transition: 'refired', incidentId: opened?.incidentId })
    await s.settled()
    expect(await s.incident(opened?.incidentId as string)).toMatchObject({ status: 'open', refires: 1, ended_at: null })
    const mails = await s.mailsOfIncident(opened?.incidentId as string)
    expect(kinds(mails)).toEqual(['diagnosis', 'recovery', 'refire'])
    expect(mails[2]?.subject).toMatch(/^\[critical\] Re-fired: AppServerDown on app-01/)
    expect(mails[2]?.headers['in-reply-to']).toBe(mails[0]?.headers['message-id'])
  })

  it('takes identity from the labels, never from a claimed fingerprint', async () => {
    const [a] = await s.post(firing('fp-a', '2026-11-01T10:00:00Z', { fingerprint: 'deadbeefdeadbeef' }))
    const [b] = await s.post(firing('fp-b', '2026-11-01T10:00:00Z', { fingerprint: 'deadbeefdeadbeef' }))
    expect([a?.duplicate, b?.duplicate]).toEqual([false, false])
    expect(a?.incidentId).not.toBe(b?.incidentId)
    // The same alert, resolved without the fingerprint it fired with: one incident.
    const [r] = await s.post(resolved('fp-a', '2026-11-01T10:00:00Z', { endsAt: '2026-11-01T10:01:00Z' }))
    expect(r).toMatchObject({ transition: 'resolved', incidentId: a?.incidentId })
    await s.settled()
    expect(kinds(await s.mailsOfIncident(a?.incidentId as string))).toEqual(['diagnosis', 'recovery'])
    expect(kinds(await s.mailsOfIncident(b?.incidentId as string))).toEqual(['diagnosis'])
    await scrapeUntil(
      async () => (await s.t.call('GET', '/metrics')).text,
      /^diagnostic_fingerprint_mismatches_total 2$/m,
    )
  })

  it('measures the duration from endsAt, not from when the resolution was processed', async () => {
    const now = Date.now()
    const startsAt = new Date(now - 10 * 60_000).toISOString()
    const endsAt = new Date(now - 8 * 60_000).toISOString()
    const [f] = await s.post(firing('duration', startsAt))
    await s.post(resolved('duration', startsAt, { endsAt }))
    await s.settled()
    const recovery = (await s.mailsOfIncident(f?.incidentId as string)).find(
      (m) => m.headers['x-diagnostic-kind'] === 'recovery',
    )
    expect(recovery?.subject).toMatch(/, open 2m 0s$/)
    expect(recovery?.text).toContain(`resolved at ${endsAt} after 2m 0s`)
    const api = (await s.t.call('GET', `/api/v1/incidents/${f?.incidentId}`)).json()
    expect(api).toMatchObject({ status: 'resolved', resolvedAt: endsAt, durationSeconds: 120 })
  })

  it('sends the recovery after the diagnosis, with its headline, when the diagnosis is slow', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString()
    const [f] = await s.post(webhook([alert({ id: 'slow', startsAt }, { appserver_instance: 'slow-01' })]))
    await s.post(
      webhook(
        [
          alert(
            { id: 'slow', startsAt, status: 'resolved', endsAt: new Date().toISOString() },
            { appserver_instance: 'slow-01' },
          ),
        ],
        {
          status: 'resolved',
        },
      ),
    )
    await waitFor(async () => (await s.mailsOfIncident(f?.incidentId as string)).length === 2, 30_000, 'both mails')
    const mails = await s.mailsOfIncident(f?.incidentId as string)
    expect(kinds(mails)).toEqual(['diagnosis', 'recovery'])
    expect(mails[1]?.text).not.toContain('No diagnosis had been completed')
    expect(mails[1]?.text).toMatch(/The diagnosis was [A-Z]{2}-\d\d /)
  })

  it('records and counts a resolution for an occurrence it never saw', async () => {
    const [r] = await s.post(resolved('unknown', '2026-11-01T09:00:00Z', { endsAt: '2026-11-01T09:30:00Z' }))
    expect(r).toMatchObject({ duplicate: false, transition: 'unmatched_resolution' })
    const api = (await s.t.call('GET', `/api/v1/incidents/${r?.incidentId}`)).json()
    expect(api).toMatchObject({ status: 'resolved', resolvedAt: '2026-11-01T09:30:00.000Z', diagnosis: null })
    await scrapeUntil(
      async () => (await s.t.call('GET', '/metrics')).text,
      /^diagnostic_alert_transitions_total\{transition="unmatched_resolution"\} [1-9]/m,
    )
  })
})
