import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeBundle } from '../../src/rules/bundle/evidence-bundle.js'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { waitFor } from '../helpers/smtp.js'
import { bearer, writeTokensFile } from '../helpers/tokens-file.js'

// What the console shows of one incident, through the HTTPS API on either storage
// (docs/api.md, "Explanation", "Timeline"): why this branch, and what happened when; the
// evidence bundle the diagnosis kept (docs/design.md, "Stored evidence").

const tokens = {
  'alertmanager-a': { token: 'explain-token-alertmanager-a1', scopes: ['webhook'] },
  'alertmanager-b': { token: 'explain-token-alertmanager-b1', scopes: ['webhook'] },
  viewer: { token: 'explain-token-viewer-00000001', scopes: ['read'] },
}

describe('an incident explains itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-explain-'))
  let t: TestService
  let incidentId: string
  const as = (who: keyof typeof tokens) => bearer(tokens[who].token)
  const firing = webhook([alert({ id: 'explained' })])
  const resolved = webhook([alert({ id: 'explained', status: 'resolved', endsAt: '2026-11-22T05:10:00.000Z' })])

  beforeAll(async () => {
    t = await build({ DIAG_API_TOKENS_FILE: writeTokensFile(dir, tokens) })
    const post = (who: keyof typeof tokens, body: unknown) =>
      t.call('POST', '/api/v1/alerts/alertmanager', { ...as(who), json: body })
    expect((await post('alertmanager-a', firing)).status).toBe(202)
    await waitFor(
      async () => (await t.rows("SELECT id FROM outbox WHERE status = 'sent'")).length === 1,
      20_000,
      'the diagnosis mailed',
    )
    // The HA peer repeats it twice, the first peer once: duplicates, answered without a write.
    for (const who of ['alertmanager-b', 'alertmanager-b', 'alertmanager-a'] as const)
      expect((await post(who, firing)).json().duplicates).toBe(1)
    expect((await post('alertmanager-a', resolved)).status).toBe(202)
    await waitFor(
      async () => (await t.rows("SELECT id FROM outbox WHERE status = 'sent'")).length === 2,
      20_000,
      'the recovery mailed',
    )
    // Housekeeping writes the duplicates' hearing first (otherwise once a minute).
    await t.service.housekeeping.runOnce()
    incidentId = String((await t.rows('SELECT id FROM incidents'))[0]?.id)
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('says why this branch: the rules that matched with their conditions and values, and the ranking', async () => {
    const res = await t.call('GET', `/api/v1/incidents/${incidentId}/explanation`, as('viewer'))
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ incidentId, primary: { branch: 'TD-02', classification: 'probable_cause' } })
    const [primary] = body.explanation.rules
    // examples/logs/app-01: one OutOfMemoryError line, nothing corroborates it.
    expect(primary).toMatchObject({ branch: 'TD-02', outcome: 'matched', corroborated: false })
    const log = JSON.stringify(primary.conditions)
    expect(log).toContain('"fact":"log","operator":"matches"')
    expect(log).toContain('"pattern":"OutOfMemoryError: Java heap space"')
    expect(body.explanation.ranking).toEqual(expect.any(Array))
    expect(body.evidence).toMatchObject({ truncated: false, storedBytes: expect.any(Number) })
    expect(body.evidence.storedBytes).toBeLessThan(body.evidence.rawBytes)
  })

  it('keeps the evidence bundle the diagnosis saw, redacted and compressed', async () => {
    const [row] = await t.rows('SELECT bundle, truncated FROM evidence_bundles')
    const decoded = await decodeBundle(row?.bundle as Buffer)
    expect(decoded.excerpt?.toString()).toContain('java.lang.OutOfMemoryError: Java heap space')
    expect(decoded.header.facts.alert).toMatchObject({ instance: 'app-01' })
    expect(Number(row?.truncated)).toBe(0)
  })

  it('gives the timeline: receipts and duplicates by sender, queue, evidence by source, diagnosis, mails, the end', async () => {
    const res = await t.call('GET', `/api/v1/incidents/${incidentId}/timeline`, as('viewer'))
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body.nextEventsCursor).toBeNull()
    const entries: Array<Record<string, unknown>> = body.entries
    const times = entries.map((e) => Date.parse(e.at as string))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    const of = (kind: string) => entries.filter((e) => e.kind === kind)
    expect(of('received').map((e) => [e.status, e.principal, e.receiver])).toEqual([
      ['firing', 'alertmanager-a', 'diagnostic-service'],
      ['resolved', 'alertmanager-a', 'diagnostic-service'],
    ])
    expect(
      of('duplicates')
        .map((e) => [e.principal, e.count])
        .sort(),
    ).toEqual([
      ['alertmanager-a', 1],
      ['alertmanager-b', 2],
    ])
    expect(of('queued')).toHaveLength(2)
    expect(of('claimed')).toHaveLength(2)
    expect(
      of('evidence')
        .map((e) => e.source)
        .sort(),
    ).toEqual(['logs', 'spool'])
    expect(of('diagnosed')).toEqual([expect.objectContaining({ branch: 'TD-02', durationMs: expect.any(Number) })])
    expect(of('recovery_prepared')).toHaveLength(1)
    expect(of('mailed').map((e) => [e.mail, e.status])).toEqual([
      ['diagnosis', 'sent'],
      ['recovery', 'sent'],
    ])
    expect(of('ended')).toEqual([expect.objectContaining({ status: 'resolved', at: '2026-11-22T05:10:00.000Z' })])
  })

  it('pages the timeline with the events, and answers 404 and 403 as the detail does', async () => {
    const first = (await t.call('GET', `/api/v1/incidents/${incidentId}/timeline?eventsLimit=1`, as('viewer'))).json()
    expect(first.entries.filter((e: { kind: string }) => e.kind === 'received')).toHaveLength(1)
    expect(first.entries.some((e: { kind: string }) => e.kind === 'ended')).toBe(false)
    const next = await t.call(
      'GET',
      `/api/v1/incidents/${incidentId}/timeline?eventsLimit=1&eventsCursor=${first.nextEventsCursor}`,
      as('viewer'),
    )
    expect(next.json().entries.map((e: { kind: string }) => e.kind)).toContain('ended')
    for (const sub of ['explanation', 'timeline']) {
      expect((await t.call('GET', `/api/v1/incidents/no-such-incident/${sub}`, as('viewer'))).json()).toEqual({
        error: 'not_found',
        message: 'No incident has this id.',
      })
      const refused = await t.call('GET', `/api/v1/incidents/${incidentId}/${sub}`, as('alertmanager-a'))
      expect(refused.status).toBe(403)
      expect(refused.json().error).toBe('forbidden')
    }
    const bad = await t.call('GET', `/api/v1/incidents/${incidentId}/timeline?eventsLimit=0`, as('viewer'))
    expect(bad.json().error).toBe('invalid_query_parameter')
  })
})
