import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { lifecycleService, type PostedEvent } from '../helpers/lifecycle.js'

// Random deliveries of firing, resolved, repeated, late and re-fired notifications for a
// few alerts, through the real service, against the invariants of docs/design.md
// ("Incidents").

const base = Date.parse('2026-11-01T10:00:00Z')
/** An instant written as Alertmanager would, or with an offset: the same instant either way. */
const written = (ms: number, offset: boolean) =>
  offset ? new Date(ms + 2 * 3_600_000).toISOString().replace('Z', '+02:00') : new Date(ms).toISOString()

const notification = fc.record({
  alert: fc.integer({ min: 0, max: 2 }),
  start: fc.integer({ min: 0, max: 2 }),
  status: fc.constantFrom('firing', 'resolved'),
  offset: fc.boolean(),
  endMinutes: fc.integer({ min: -5, max: 30 }),
})

describe('incident lifecycle under random deliveries', () => {
  let s: Awaited<ReturnType<typeof lifecycleService>>
  let run = 0
  beforeAll(async () => {
    s = await lifecycleService()
  })
  afterAll(() => s.close())

  it('keeps every invariant', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(notification, { minLength: 1, maxLength: 12 }), async (deliveries) => {
        run++
        const posted: Array<{ key: string; status: string; event: PostedEvent }> = []
        for (const d of deliveries) {
          const startsAt = base + d.start * 3_600_000
          const body = alert({
            id: `run${run}-${d.alert}`,
            status: d.status,
            startsAt: written(startsAt, d.offset),
            ...(d.status === 'resolved' ? { endsAt: written(startsAt + d.endMinutes * 60_000, false) } : {}),
          })
          const [event] = await s.post(webhook([body], { status: d.status }))
          posted.push({ key: `${d.alert}/${d.start}`, status: d.status, event: event as PostedEvent })
        }
        await s.settled()

        const incidents = new Set(posted.map((p) => p.event.incidentId))
        // At most one open occurrence per alert.
        for (const a of [0, 1, 2]) {
          const ids = new Set(posted.filter((p) => p.key.startsWith(`${a}/`)).map((p) => p.event.incidentId))
          const statuses = await Promise.all([...ids].map(async (id) => (await s.incident(id)).status))
          expect(statuses.filter((status) => status === 'open').length).toBeLessThanOrEqual(1)
        }
        // One incident per occurrence; the last word on it decides whether it is resolved.
        const byKey = new Map<string, typeof posted>()
        for (const p of posted) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p])
        for (const notifications of byKey.values()) {
          expect(new Set(notifications.map((n) => n.event.incidentId)).size).toBe(1)
          const last = notifications.at(-1)
          if (last?.status === 'resolved') expect((await s.incident(last.event.incidentId)).status).toBe('resolved')
          // Exactly one diagnosis mail for an occurrence that was ever seen firing, none otherwise.
          const mails = await s.mailsOfIncident(last?.event.incidentId as string)
          const kinds = mails.map((m) => m.headers['x-diagnostic-kind'])
          const fired = notifications.some((n) => n.status === 'firing')
          expect(kinds.filter((k) => k === 'diagnosis')).toHaveLength(fired ? 1 : 0)
          // Nothing before the diagnosis: recoveries and re-fires follow it.
          if (kinds.length > 0) expect(kinds[0]).toBe('diagnosis')
        }
        expect(incidents.size).toBe(byKey.size)
      }),
      { numRuns: 100 },
    )
  }, 300_000)
})
