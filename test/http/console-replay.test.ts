import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CustomRuleInput } from '../../src/rules/types.js'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { ConsoleClient, csrfOf, htmlEscaped, htmlUnescaped } from '../helpers/console-client.js'
import { storedState } from '../helpers/replay-state.js'
import { exportRunawayRule, refusedRules, startedLatelyRule, validRule } from '../helpers/rule-input.js'
import { waitFor } from '../helpers/smtp.js'
import { bearer, writeTokensFile } from '../helpers/tokens-file.js'

// The console's replay page and its Register button (docs/operations.md, "The web console";
// docs/design.md, "Replay") over the real HTTPS listener, on SQLite and on PostgreSQL (npm run
// test:postgres): the API's checks in the API's words, the diff of outcomes, no state change,
// CSRF on both forms, and registering only with rules:write, through the API's own service.

const tokens = {
  alertmanager: { token: 'console-replay-webhook-00001', scopes: ['webhook'] },
  viewer: { token: 'console-replay-viewer-000001', scopes: ['read'] },
  sre: { token: 'console-replay-sre-000000001', scopes: ['read', 'rules:write'] },
}

/** The page's text between two markers, for what one part of it says. */
const part = (html: string, from: string, to: string) => {
  const start = html.indexOf(from)
  expect(start, from).toBeGreaterThanOrEqual(0)
  const end = html.indexOf(to, start)
  return html.slice(start, end < 0 ? undefined : end)
}
describe('the console replay page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-console-replay-'))
  let t: TestService
  let viewer: ConsoleClient
  let sre: ConsoleClient
  const ids: Record<string, string> = {}

  /** The replay form of a fresh page, posted with `candidates` (JSON text) by `client`. */
  const replay = async (client: ConsoleClient, candidates: string, last = '1000') => {
    const form = await client.get('/console/rules/replay')
    return client.post('/console/rules/replay', { _csrf: csrfOf(form.text), candidates, last })
  }
  const api = (body: unknown) => t.call('POST', '/api/v1/rules/replay', { ...bearer(tokens.viewer.token), json: body })

  beforeAll(async () => {
    t = await build({ DIAG_API_TOKENS_FILE: writeTokensFile(dir, tokens) })
    const post = (body: unknown) =>
      t.call('POST', '/api/v1/alerts/alertmanager', { ...bearer(tokens.alertmanager.token), json: body })
    // app-01 (TD-02) twice and app-02 (AH-01): three stored diagnoses with their evidence.
    for (const one of [alert({ id: 'p1' }), alert({ id: 'p2' }), alert({ id: 'p3' }, { appserver_instance: 'app-02' })])
      expect((await post(webhook([one]))).status).toBe(202)
    await waitFor(async () => (await t.rows('SELECT event_id FROM results')).length === 3, 20_000, 'three diagnoses')
    for (const row of await t.rows('SELECT i.id, e.alert FROM incidents i JOIN events e ON e.incident_id = i.id'))
      ids[String(/"alert_id":"(p\d)"/.exec(String(row.alert))?.[1])] = String(row.id)
    viewer = new ConsoleClient(t.service.url, t.ca)
    sre = new ConsoleClient(t.service.url, t.ca)
    expect((await viewer.signIn(tokens.viewer.token)).status).toBe(303)
    expect((await sre.signIn(tokens.sre.token)).status).toBe(303)
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('is linked from the rules page and offers a form for a rule or rulepack and N, 1,000 by default', async () => {
    expect((await viewer.get('/console/rules')).text).toContain('<a href="/console/rules/replay">')
    const form = await viewer.get('/console/rules/replay')
    expect(form.status).toBe(200)
    expect(form.text).toContain('<textarea id="candidates" name="candidates"')
    expect(form.text).toContain('<input id="last" name="last" type="number" min="1" max="5000" step="1" value="1000"')
    expect(form.text).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i)
  })

  it('shows the diff of outcomes the API gives: the changed primaries with the deciding conditions, the counts, the cost', async () => {
    const res = await replay(viewer, JSON.stringify(exportRunawayRule))
    expect(res.status).toBe(200)
    const html = res.text
    expect(html).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i)
    const fromApi = (await api(exportRunawayRule)).json()
    expect(fromApi).toMatchObject({ evaluated: 3, matches: 2, unchanged: 1 })
    expect(html).toContain('<dt>Events replayed</dt><dd>3 of the last 1000</dd>')
    expect(html).toContain('<dt>Primary would change</dt><dd>2</dd>')
    expect(html).toContain('<dt>Unchanged</dt><dd>1</dd>')
    expect(html).toContain('<dt>Events matched</dt><dd>2</dd>')
    expect(html).toMatch(
      /<dt>Cost per event<\/dt><dd>\d+(\.\d+)? (µs|ms) \(at most [^)]+\), beside \d+(\.\d+)? (µs|ms) for the catalogue<\/dd>/,
    )
    expect(html).toContain(
      '<th scope="row">RP-01</th><td>ReportExportRunaway</td><td class="num">11</td><td class="num">2</td>',
    )
    const changed = part(html, '<table class="changed">', '<h3>Incidents where')
    for (const id of [ids.p1, ids.p2])
      expect(changed).toContain(`<a href="/console/incidents/${id}">AppServerDown on app-01</a>`)
    expect(changed).not.toContain(ids.p3)
    expect(changed).toContain('<td><strong>TD-02</strong> JavaHeapExhausted: probable cause, medium</td>')
    expect(changed).toContain('<td><strong>RP-01</strong> ReportExportRunaway: probable cause, medium</td>')
    expect(changed).toContain(
      'Outranks TD-02 by the rules&#x27; priorities, higher first (priority 100 against priority 50).',
    )
    // The deciding conditions: the log matched the candidate's pattern on a line of examples/logs/app-01.
    expect(changed).toMatch(/<td class="depth-\d+"><code>log<\/code><\/td>\s*<td>matches<\/td>/)
    expect(changed).toContain('/export [0-9]{1,8} started for customer/')
    expect(changed).toMatch(/<li><code>line \d+: [^<]*export 8812 started for customer 4411/)
    // The viewer may replay, not register.
    expect(html).not.toContain('action="/console/rules/register"')
    expect(html).toContain('Registering needs a token with the <code>rules:write</code> scope')
  })

  it('lists a rule that only adds a finding apart, and reads the last N', async () => {
    const html = (await replay(viewer, JSON.stringify([startedLatelyRule]), '2')).text
    expect(html).toContain('<dt>Events replayed</dt><dd>2 of the last 2</dd>')
    const added = part(html, '<table class="added">', '</table>')
    expect(added).toContain('<td><strong>TD-02</strong> JavaHeapExhausted</td>')
    expect(added).toContain('<td><strong>RP-02</strong> TomcatStartedLately: probable cause</td>')
  })

  it('refuses candidates with the status and the words of the API, keeping what was pasted', async () => {
    // Each check of registration, and two rules of a pack that conflict with each other.
    for (const candidate of [...refusedRules, [exportRunawayRule, { ...exportRunawayRule, ruleName: 'Other' }]]) {
      const fromApi = await api(candidate)
      const res = await replay(viewer, JSON.stringify(candidate))
      expect(res.status).toBe(fromApi.status)
      const { error, message, details = [] } = fromApi.json()
      expect(res.text).toContain(
        `<p><strong>${htmlEscaped(message)}</strong> (${fromApi.status} <code>${error}</code>)</p>`,
      )
      for (const detail of details as Array<{ path: string; message: string }>)
        expect(res.text).toContain(`<li><code>${htmlEscaped(detail.path)}</code> ${htmlEscaped(detail.message)}</li>`)
      expect(res.text).toContain(`>${htmlEscaped(JSON.stringify(candidate))}</textarea>`)
    }
    const notJson = await replay(viewer, '{"branch": ')
    expect(notJson.status).toBe(400)
    expect(notJson.text).toContain('The request body is not valid JSON.')
    const tooMany = await replay(viewer, JSON.stringify(exportRunawayRule), '5001')
    expect(tooMany.status).toBe(400)
    expect(tooMany.text).toContain('<li><code>/last</code> must be a whole number from 1 to 5000</li>')
    const huge = await replay(viewer, JSON.stringify({ ...exportRunawayRule, assessment: 'x'.repeat(1_100_000) }))
    expect(huge.status).toBe(413)
    expect(huge.text).toContain('The request body exceeds 1048576 bytes.')
  })

  it('refuses a replay form without its CSRF token, or with another browser’s', async () => {
    const candidates = JSON.stringify(exportRunawayRule)
    const none = await viewer.post('/console/rules/replay', { candidates, last: '10' })
    expect(none.status).toBe(403)
    expect(none.text).toContain('This form was refused')
    const other = await sre.post('/console/rules/replay', {
      _csrf: csrfOf((await viewer.get('/console/rules/replay')).text),
      candidates,
    })
    expect(other.status).toBe(403)
  })

  it('changes nothing: the rules, incidents, results, bundles, mails and the live engine as they were', async () => {
    const before = await storedState(t)
    expect((await replay(sre, JSON.stringify([exportRunawayRule]))).status).toBe(200)
    expect(await storedState(t)).toEqual(before)
  })

  it('says so when a replay is already running (503 replay_busy), and replays once it has finished', async () => {
    // A registration whose pattern check the test holds keeps the rules service busy, and so
    // the first replay running (its checks wait their turn): the second is refused at once.
    let release: () => void = () => {}
    const held = new Promise<{ safe: false; reason: string }>(
      (resolve) => (release = () => resolve({ safe: false, reason: 'held by the test' })),
    )
    const holding = t.service.rules.register(
      validRule({ branch: 'RP-09', ruleName: 'Held' }) as unknown as CustomRuleInput,
      'test',
      { verdict: () => held },
    )
    const candidates = JSON.stringify(exportRunawayRule)
    const both = [replay(viewer, candidates), replay(sre, candidates)]
    const first = await Promise.race(both)
    expect(first.status).toBe(503)
    expect(first.headers['retry-after']).toBe('10')
    expect(first.text).toContain('A replay is already running on this replica; retry when it has finished.')
    expect(first.text).toContain('(503 <code>replay_busy</code>)')
    release()
    await expect(holding).rejects.toThrow('held by the test')
    expect((await Promise.all(both)).map((res) => res.status).sort()).toEqual([200, 503])
  })

  it('refuses Register to a session without rules:write (403), even with a valid CSRF token', async () => {
    // Without one, too: the scope is checked before the body is read.
    const bare = await viewer.post('/console/rules/register', { candidates: JSON.stringify(exportRunawayRule) })
    expect(bare.status).toBe(403)
    expect(bare.text).toContain('This token does not have the rules:write scope.')
    const form = await viewer.get('/console/rules/replay')
    const res = await viewer.post('/console/rules/register', {
      _csrf: csrfOf(form.text),
      candidates: JSON.stringify(exportRunawayRule),
    })
    expect(res.status).toBe(403)
    expect(res.text).toContain('This token does not have the rules:write scope.')
    expect(await t.count('rules')).toBe(10)
    expect(t.service.rules.catalogue.custom.length).toBe(10)
  })

  it('registers from the result with one click under rules:write, through the API’s service; again is a 409', async () => {
    const result = await replay(sre, JSON.stringify(exportRunawayRule))
    const form = /<form method="post" action="\/console\/rules\/register" class="register">([\s\S]*?)<\/form>/.exec(
      result.text,
    )?.[1] as string
    expect(form).toContain('<button type="submit">Register RP-01</button>')
    const field = (name: string) => htmlUnescaped(new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1] ?? '')
    // Without its CSRF token, the Register form is refused too.
    expect((await sre.post('/console/rules/register', { candidates: field('candidates') })).status).toBe(403)
    const registered = await sre.post('/console/rules/register', {
      _csrf: field('_csrf'),
      candidates: field('candidates'),
    })
    expect(registered.status).toBe(201)
    expect(registered.text).toContain(
      '<li><a href="/console/rules?from&#x3D;0#rule-11">RP-01 ReportExportRunaway</a>, rule 11, now in the catalogue and the live engines.</li>',
    )
    const [stored] = await t.rows('SELECT branch, created_by FROM rules WHERE id = 11')
    expect(stored).toEqual({ branch: 'RP-01', created_by: 'sre' })
    const api = (await t.call('GET', '/api/v1/rules/RP-01', bearer(tokens.viewer.token))).json()
    expect(api).toMatchObject({ id: 11, pattern: exportRunawayRule.pattern, createdBy: 'sre' })
    expect((await sre.get('/console/rules')).text).toContain('<tr id="rule-11">\n      <th scope="row">RP-01</th>')
    // The same candidate again: the API's conflict, in its words.
    const again = await sre.post('/console/rules/register', {
      _csrf: field('_csrf'),
      candidates: field('candidates'),
    })
    const fromApi = await t.call('POST', '/api/v1/rules', { ...bearer(tokens.sre.token), json: exportRunawayRule })
    expect([again.status, fromApi.status]).toEqual([409, 409])
    expect(again.text).toContain(
      `<p><strong>${htmlEscaped(fromApi.json().message)}</strong> (409 <code>rule_branch_conflict</code>)</p>`,
    )
    expect(await t.count('rules')).toBe(11)
  })
})
