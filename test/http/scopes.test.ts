import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'

// A token may do only what its scopes say. Alertmanager's token posts
// webhooks and nothing else; registering a rule, which changes what every diagnosis says,
// needs rules:write.
const tokens = {
  alertmanager: 'scope-token-alertmanager-1',
  sre: 'scope-token-sre-00000000001',
  viewer: 'scope-token-viewer-0000001',
}

const rule = (branch: string) => ({
  branch,
  ruleName: `ScopedRule${branch.replace('-', '')}`,
  category: 'general',
  targetSource: 'local_file',
  pattern: `ScopedRuleMarker${branch}`,
  assessment: 'A rule registered by a scoped token.',
  classification: 'probable_cause',
  confidence: 'medium',
  recommendedActions: ['Look at it.'],
})

describe('token scopes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-scopes-'))
  let t: TestService
  beforeAll(async () => {
    const file = join(dir, 'tokens.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'alertmanager', token: tokens.alertmanager, scopes: ['webhook'] },
        { name: 'sre', token: tokens.sre, scopes: ['rules:write', 'read'] },
        { name: 'viewer', token: tokens.viewer, scopes: ['read'] },
      ]),
    )
    t = await build({ DIAG_API_TOKENS_FILE: file })
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const as = (who: keyof typeof tokens) => ({ headers: { authorization: `Bearer ${tokens[who]}` } })
  const rules = () => t.count('rules')
  const forbidden = (res: { status: number; json: () => any }, scope: string) => {
    expect(res.status).toBe(403)
    expect(res.json()).toEqual({ error: 'forbidden', message: `This token does not have the ${scope} scope.` })
  }

  it('lets a webhook-only token post alerts and nothing else', async () => {
    const before = await rules()
    forbidden(await t.call('POST', '/api/v1/rules', { ...as('alertmanager'), json: rule('AM-01') }), 'rules:write')
    expect(await rules()).toBe(before)
    forbidden(await t.call('GET', '/api/v1/rules', as('alertmanager')), 'read')
    forbidden(await t.call('GET', '/api/v1/incidents', as('alertmanager')), 'read')
    const posted = await t.call('POST', '/api/v1/alerts/alertmanager', {
      ...as('alertmanager'),
      json: webhook([alert({ id: 'scoped1' })]),
    })
    expect(posted.status).toBe(202)
  })

  it('lets a read token read and nothing else', async () => {
    const events = await t.count('events')
    forbidden(
      await t.call('POST', '/api/v1/alerts/alertmanager', {
        ...as('viewer'),
        json: webhook([alert({ id: 'scoped2' })]),
      }),
      'webhook',
    )
    expect(await t.count('events')).toBe(events)
    forbidden(await t.call('POST', '/api/v1/rules', { ...as('viewer'), json: rule('RO-01') }), 'rules:write')
    expect((await t.call('GET', '/api/v1/rules', as('viewer'))).status).toBe(200)
    expect((await t.call('GET', '/api/v1/incidents', as('viewer'))).status).toBe(200)
  })

  it('lets a rules:write token register, recording its own name as createdBy', async () => {
    const res = await t.call('POST', '/api/v1/rules', { ...as('sre'), json: { ...rule('SRE-01'), createdBy: 'seed' } })
    expect(res.status).toBe(201)
    expect(res.json().createdBy).toBe('sre')
    forbidden(
      await t.call('POST', '/api/v1/alerts/alertmanager', { ...as('sre'), json: webhook([alert()]) }),
      'webhook',
    )
  })

  it('checks the token before the scope: a wrong token is 401 on every route', async () => {
    const wrong = { headers: { authorization: 'Bearer not-a-token-0000000000' } }
    expect((await t.call('POST', '/api/v1/rules', { ...wrong, json: rule('NO-01') })).status).toBe(401)
  })
})
