import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { storedState } from '../helpers/replay-state.js'
import { exportRunawayRule, refusedRules, startedLatelyRule, validRule } from '../helpers/rule-input.js'
import { waitFor } from '../helpers/smtp.js'
import { bearer, writeTokensFile } from '../helpers/tokens-file.js'

// Replay before registering (docs/design.md, "Replay"; docs/api.md, "Replay a candidate
// rule"): through the HTTPS listener, on either storage. The candidates are checked exactly
// as registration checks them, evaluated on the stored evidence of the last N diagnosed
// events, and nothing changes: no rule stored, no incident touched, no live engine told.

const tokens = {
  alertmanager: { token: 'replay-token-alertmanager-01', scopes: ['webhook'] },
  sre: { token: 'replay-token-sre-000000000001', scopes: ['rules:write', 'read'] },
  viewer: { token: 'replay-token-viewer-000000001', scopes: ['read'] },
  writer: { token: 'replay-token-writer-000000001', scopes: ['rules:write'] },
}
const as = (who: keyof typeof tokens) => bearer(tokens[who].token)

const exportRule = exportRunawayRule
const startupRule = startedLatelyRule

describe('POST /api/v1/rules/replay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-replay-'))
  let t: TestService
  const replay = (body: unknown, query = '', who: keyof typeof tokens = 'viewer') =>
    t.call('POST', `/api/v1/rules/replay${query}`, { ...as(who), json: body })

  beforeAll(async () => {
    t = await build({ DIAG_API_TOKENS_FILE: writeTokensFile(dir, tokens) })
    // Two alerts on app-01 (TD-02), one each on app-02, app-03, app-04: five stored diagnoses.
    const alerts = [
      alert({ id: 'r1' }),
      alert({ id: 'r2' }),
      ...['app-02', 'app-03', 'app-04'].map((instance) => alert({ id: instance }, { appserver_instance: instance })),
    ]
    for (const one of alerts) {
      const res = await t.call('POST', '/api/v1/alerts/alertmanager', { ...as('alertmanager'), json: webhook([one]) })
      expect(res.status).toBe(202)
    }
    await waitFor(async () => (await t.rows('SELECT event_id FROM results')).length === 5, 20_000, 'five diagnoses')
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('shows the incidents whose primary branch would change, before -> after, with the conditions that decided', async () => {
    const res = await replay(exportRule)
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ requested: 1000, evaluated: 5, matches: 2, unchanged: 3, unreadable: 0 })
    expect(body.candidates).toEqual([{ id: 11, branch: 'RP-01', ruleName: 'ReportExportRunaway', matches: 2 }])
    expect(body.changed).toHaveLength(2)
    for (const change of body.changed) {
      expect(change).toMatchObject({
        instance: 'app-01',
        before: { branch: 'TD-02', classification: 'probable_cause' },
        after: { branch: 'RP-01', classification: 'probable_cause', confidence: 'medium' },
        decidedBy: { branch: 'RP-01', outcome: 'matched' },
        // The ranking criterion that put the candidate first: its priority, 100 against TD-02's 50.
        outranked: { branch: 'TD-02', criterion: 'priority', first: 100, second: 50 },
      })
      expect(JSON.stringify(change.decidedBy.conditions)).toContain('export 8812 started for customer 4411')
    }
    expect(body.added).toEqual([])
    expect(body.cost.events).toBe(5)
    expect(body.cost.candidatesMicros.mean).toBeGreaterThanOrEqual(0)
    expect(body.cost.catalogueMicros.mean).toBeGreaterThan(0)
  })

  it('a rulepack: a rule that only adds a finding is listed apart, and ?last=N reads the N newest', async () => {
    const body = (await replay([startupRule])).json()
    expect(body).toMatchObject({ evaluated: 5, matches: 2, unchanged: 3, changed: [] })
    expect(
      body.added.map((a: { primary: { branch: string }; added: Array<{ branch: string }> }) => [
        a.primary.branch,
        a.added[0]?.branch,
      ]),
    ).toEqual([
      ['TD-02', 'RP-02'],
      ['TD-02', 'RP-02'],
    ])
    const both = (await replay([exportRule, startupRule], '?last=3')).json()
    expect(both.requested).toBe(3)
    expect(both.evaluated).toBe(3)
    expect(both.candidates.map((c: { id: number }) => c.id)).toEqual([11, 12])
  })

  it('refuses a candidate exactly as registration refuses it, and stores nothing', async () => {
    for (const candidate of refusedRules) {
      const registration = await t.call('POST', '/api/v1/rules', { ...as('sre'), json: candidate })
      const replayed = await replay(candidate)
      expect(registration.status).toBeGreaterThanOrEqual(400)
      expect([replayed.status, replayed.json()]).toEqual([registration.status, registration.json()])
    }
    // In a rulepack, the rule's index leads its paths.
    const second = (await replay([exportRule, { ...validRule(), pattern: undefined }])).json()
    expect(second.error).toBe('invalid_rule_schema')
    expect(second.details).toEqual([{ path: '/1/pattern', message: 'is missing' }])
    // In words, as registration says it (src/schema-words.ts), never a regular expression.
    const misnamed = (await replay([exportRule, { ...validRule(), branch: 'rp-2' }])).json()
    expect(misnamed).toEqual({
      error: 'invalid_rule_schema',
      message: 'The request body does not match the schema.',
      details: [{ path: '/1/branch', message: 'must be capital letters, a hyphen and two digits, like OPS-31' }],
    })
    // Two rules of a pack conflict with each other as two registrations would.
    const twice = await replay([exportRule, { ...exportRule, ruleName: 'Other' }])
    expect([twice.status, twice.json().error]).toEqual([409, 'rule_branch_conflict'])
    expect(await t.count('rules')).toBe(10)
  })

  it('needs the read scope, bounds N and the body, and answers with the API error shapes', async () => {
    for (const who of ['alertmanager', 'writer'] as const) {
      const res = await replay(exportRule, '', who)
      expect(res.status).toBe(403)
      expect(res.json()).toEqual({ error: 'forbidden', message: 'This token does not have the read scope.' })
    }
    for (const query of ['?last=0', '?last=5001', '?last=ten', '?other=1']) {
      expect((await replay(exportRule, query)).json().error).toBe('invalid_query_parameter')
    }
    expect((await replay(exportRule, '?last=5001')).json().details).toEqual([
      { path: '/last', message: 'must be a whole number from 1 to 5000' },
    ])
    expect((await replay([])).status).toBe(400)
    expect((await replay(Array.from({ length: 51 }, () => exportRule))).json().details).toEqual([
      { path: '/', message: 'must hold 1 to 50 rules' },
    ])
    const huge = await t.call('POST', '/api/v1/rules/replay', {
      ...as('viewer'),
      headers: { ...as('viewer').headers, 'content-type': 'application/json' },
      body: JSON.stringify({ ...exportRule, assessment: 'x'.repeat(1_100_000) }),
    })
    expect([huge.status, huge.json().error]).toEqual([413, 'payload_too_large'])
    const text = await t.call('POST', '/api/v1/rules/replay', { ...as('viewer'), body: 'x' })
    expect(text.status).toBe(415)
    const put = await t.call('PUT', '/api/v1/rules/replay', as('viewer'))
    expect([put.status, put.headers.allow]).toEqual([405, 'POST'])
  })

  it('changes nothing: twice the same answer, the rules, incidents and results as they were, the live engine untouched', async () => {
    const before = await storedState(t)
    const strip = (body: Record<string, unknown>) => ({ ...body, durationMs: 0, cost: 0 })
    const first = strip((await replay([exportRule, startupRule])).json())
    const second = strip((await replay([exportRule, startupRule])).json())
    expect(second).toEqual(first)
    expect(await storedState(t)).toEqual(before)
    // A new alert on app-01 is still diagnosed as it was: the candidate never reached the live engine.
    await t.call('POST', '/api/v1/alerts/alertmanager', {
      ...as('alertmanager'),
      json: webhook([alert({ id: 'after' })]),
    })
    await waitFor(
      async () => (await t.rows('SELECT event_id FROM results')).length === 6,
      20_000,
      'the sixth diagnosis',
    )
    const [latest] = await t.rows(
      'SELECT branch FROM incidents i JOIN events e ON e.incident_id = i.id WHERE e.alert LIKE \'%"alert_id":"after"%\'',
    )
    expect(latest?.branch).toBe('TD-02')
  })
})
