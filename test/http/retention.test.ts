import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { waitFor } from '../helpers/smtp.js'

// Issue 26, point 3: retention never removes what is still firing, and the file outbox is
// pruned with the incidents its mails belong to (docs/design.md, "Incidents").

describe('retention of occurrences still heard', () => {
  let t: TestService
  const post = async (payload: unknown) => {
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
    expect(res.status).toBe(202)
    return res.json().events[0] as { incidentId: string; eventId: string; duplicate: boolean }
  }
  // The file outbox's directory appears with its first mail.
  const outbox = () =>
    existsSync(join(t.dataDir, 'outbox'))
      ? readdirSync(join(t.dataDir, 'outbox')).filter((name) => name.endsWith('.eml'))
      : []
  // Everything the service stored of the incident, made as old as the retention's cut.
  const age = async (incidentId: string) => {
    await t.rows('UPDATE events SET received_at = 0 WHERE incident_id = ?', incidentId)
    await t.rows('UPDATE incidents SET opened_at = 0, last_heard_at = 0 WHERE id = ?', incidentId)
  }
  const exists = async (incidentId: string) =>
    (await t.rows('SELECT id FROM incidents WHERE id = ?', incidentId)).length === 1

  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())

  it('keeps an open occurrence whose repeats keep coming, and prunes one that went silent, with its .eml', async () => {
    const alive = await post(webhook([alert({ id: 'alive' })]))
    const silent = await post(webhook([alert({ id: 'silent' })]))
    await waitFor(() => outbox().length === 2, 20_000, 'two reports written to the file outbox')
    await age(alive.incidentId)
    await age(silent.incidentId)
    // Alertmanager's repeat of the firing alert: answered without a write.
    const repeat = await post(webhook([alert({ id: 'alive' })]))
    expect(repeat).toMatchObject({ duplicate: true, incidentId: alive.incidentId })

    expect(await t.service.housekeeping.runOnce()).toBe(2) // the silent one's event and incident
    expect(await exists(alive.incidentId)).toBe(true)
    expect(await exists(silent.incidentId)).toBe(false)
    expect(outbox()).toEqual([`${alive.eventId}-diagnosis.eml`])
    // The repeat was written as a hearing: the occurrence is as recent as the repeat.
    const [{ last_heard_at: heard }] = (await t.rows(
      'SELECT last_heard_at FROM incidents WHERE id = ?',
      alive.incidentId,
    )) as [{ last_heard_at: number }]
    expect(heard).toBeGreaterThan(0)
  })

  it('prunes an ended occurrence once it was last heard before the cut', async () => {
    const fired = await post(webhook([alert({ id: 'ended' })]))
    await post(webhook([alert({ id: 'ended', status: 'resolved', endsAt: new Date().toISOString() })]))
    await waitFor(() => outbox().some((name) => name.endsWith('-recovery.eml')), 20_000, 'the recovery written')
    await age(fired.incidentId)
    expect(await t.service.housekeeping.runOnce()).toBe(3) // two events and the incident
    expect(await exists(fired.incidentId)).toBe(false)
    expect(outbox().some((name) => name.startsWith(fired.eventId))).toBe(false)
  })
})
