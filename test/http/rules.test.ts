import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { build, type TestService } from '../helpers/build.js'
import { validRule } from '../helpers/rule-input.js'

const path = '/api/v1/rules'

function expectError(res: { status: number; json: () => any }, status: number, code: string) {
  expect(res.status).toBe(status)
  const body = res.json()
  expect(body).toMatchObject({ error: code, message: expect.any(String) })
  expect(JSON.stringify(body)).not.toMatch(/SQLITE|node_modules|\/work\/|\.ts:\d+/)
  // A schema error is said in words (src/schema-words.ts), never in ajv's regular expressions.
  expect(JSON.stringify(body)).not.toMatch(/must match pattern|must have required property|must NOT/)
  return body
}

describe('rules API (spec, D19, D20)', () => {
  let t: TestService
  let stored: () => Promise<Array<Record<string, unknown>>>
  beforeAll(async () => {
    t = await build()
    stored = () => t.rows('SELECT * FROM rules ORDER BY id')
  })
  afterAll(() => t.close())

  it('lists the fresh catalogue: 20 built-ins by branch, then the 10 seed rules by id', async () => {
    const res = await t.call('GET', path)
    expect(res.status).toBe(200)
    const body = res.json()
    expect(body.total).toBe(30)
    expect(body.category).toBeNull()
    expect(body.rules.slice(0, 3).map((r: { branch: string }) => r.branch)).toEqual(['AH-01', 'AH-02', 'AH-03'])
    expect(body.rules.slice(20).map((r: { id: number }) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(Object.keys(body.rules[0]).sort()).toEqual(
      ['branch', 'category', 'classification', 'confidence', 'id', 'recommendedActions', 'ruleId', 'ruleName'].sort(),
    )
    const td06 = body.rules.find((r: { branch: string }) => r.branch === 'TD-06')
    expect(td06).toMatchObject({ id: 'builtin-TD-06', ruleId: null, classification: 'undetermined', confidence: null })
  })

  it('filters by category and echoes it', async () => {
    const body = (await t.call('GET', `${path}?category=jvm_memory`)).json()
    expect(body.category).toBe('jvm_memory')
    expect(body.total).toBe(body.rules.length)
    expect(body.rules.map((r: { branch: string }) => r.branch)).toEqual(
      expect.arrayContaining(['AH-01', 'GC-01', 'GC-04', 'TD-02', 'TD-03', 'TD-11', 'TD-12']),
    )
    expect(body.rules.every((r: { category: string }) => r.category === 'jvm_memory')).toBe(true)
  })

  it('pages the catalogue with an opaque cursor, each rule exactly once and in order', async () => {
    const whole = (await t.call('GET', path)).json()
    expect(whole.nextCursor).toBeNull()
    const seen: unknown[] = []
    let cursor: string | null = null
    do {
      const body: { rules: unknown[]; total: number; nextCursor: string | null } = (
        await t.call('GET', `${path}?limit=7${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()
      expect(body.rules.length).toBeLessThanOrEqual(7)
      expect(body.total).toBe(whole.total)
      seen.push(...body.rules)
      cursor = body.nextCursor
    } while (cursor)
    expect(seen).toEqual(whole.rules)
  })

  it.each(['?limit=0', '?limit=201', '?cursor=bm9wZQ'])('answers 400 invalid_query_parameter for %s', async (query) => {
    expectError(await t.call('GET', `${path}${query}`), 400, 'invalid_query_parameter')
  })

  it('answers 400 invalid_query_parameter for a category outside the enum', async () => {
    expectError(await t.call('GET', `${path}?category=memory`), 400, 'invalid_query_parameter')
  })

  it('says what a refused query parameter must be, in words', async () => {
    expect((await t.call('GET', `${path}?limit=201`)).json()).toEqual({
      error: 'invalid_query_parameter',
      message: 'A query parameter is invalid.',
      details: [{ path: '/limit', message: 'must be a whole number from 1 to 200' }],
    })
    expect((await t.call('GET', `${path}?category=memory`)).json().details).toEqual([
      {
        path: '/category',
        message:
          'must be one of: jvm_memory, concurrency_threading, database_persistence, network_integration, application_lifecycle, storage_os_limits, security_session, general',
      },
    ])
  })

  it.each([
    ['TD-01', { id: 'builtin-TD-01', ruleName: 'UpstreamConnectionRefused', category: 'network_integration' }],
    ['builtin-GC-02', { branch: 'GC-02', classification: 'probable_cause', confidence: 'medium' }],
    ['TD-09', { id: 1, createdBy: 'seed', targetSource: 'local_file', ruleName: 'JdbcPoolExhausted' }],
    ['3', { branch: 'TD-11', pattern: 'java.lang.StackOverflowError' }],
  ])('answers GET /api/v1/rules/%s with the rule', async (key, expected) => {
    const res = await t.call('GET', `${path}/${key}`)
    expect(res.status).toBe(200)
    expect(res.json()).toMatchObject(expected)
  })

  it('shows a built-in with the fields of the spec, no pattern or audit fields', async () => {
    const body = (await t.call('GET', `${path}/AH-05`)).json()
    expect(Object.keys(body).sort()).toEqual(
      [
        'assessment',
        'branch',
        'category',
        'classification',
        'confidence',
        'id',
        'recommendedActions',
        'ruleId',
        'ruleName',
      ].sort(),
    )
  })

  it.each(['999', 'XX-99', 'builtin-XX-01'])('answers 404 not_found for %s', async (key) => {
    expectError(await t.call('GET', `${path}/${key}`), 404, 'not_found')
  })

  it('answers 401 without a token on every rules endpoint', async () => {
    for (const [method, url] of [
      ['GET', path],
      ['GET', `${path}/TD-01`],
      ['POST', path],
    ] as const) {
      const res = await t.call(method, url, {
        json: method === 'POST' ? validRule() : undefined,
        headers: { authorization: '' },
      })
      expectError(res, 401, 'unauthorized')
    }
    expect(await stored()).toHaveLength(10)
  })

  it('registers a rule: 201 with the full record, stored, and live before the response', async () => {
    const res = await t.call('POST', path, { json: validRule() })
    expect(res.status).toBe(201)
    const rule = res.json()
    expect(rule).toEqual({
      ...validRule(),
      id: 11,
      classification: 'confirmed_cause',
      confidence: 'high',
      // No priority given: it follows from the classification (docs/design.md, "Ranking").
      priority: null,
      // No exception classes or meanings: the pattern alone (docs/api.md).
      exceptionClass: null,
      exceptionMeaning: null,
      createdBy: 'default',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    })
    expect(await stored()).toHaveLength(11)
    expect((await stored())[10]).toMatchObject({ branch: 'TD-19', principal: 'default', created_by: 'default' })
    expect((await t.call('GET', `${path}/TD-19`)).json()).toEqual(rule)

    // Hot-added: the very next diagnosis uses it.
    const log = '2026-11-22 05:00:00 ERROR [batch-1] LedgerLockTimeout: lock on account 4711 not granted'
    const evidence = withLogText(
      emptyEvidence({ alertname: 'OrdersBatchFailed', instance: 'app-01', severity: 'critical' }),
      log,
    )
    const diagnosis = await t.service.analysis.diagnose(evidence)
    expect(diagnosis.primary.rule.branch).toBe('TD-19')
    expect(diagnosis.primary.logMatch).toEqual({
      line: 1,
      text: log,
      context: [{ number: 1, text: log }],
      repeated: false,
      causeDepth: 0,
    })
  })

  it('records the token as createdBy whatever the body says, ruleId null when absent, and accepts mixed case', async () => {
    const res = await t.call('POST', path, {
      json: validRule({
        ruleId: undefined,
        branch: 'OPS-01',
        ruleName: 'cacheNodeEvicted',
        pattern: 'CacheNodeEvictedException',
        classification: 'Probable_Cause',
        confidence: 'Medium',
        createdBy: 'seed',
      }),
    })
    expect(res.status).toBe(201)
    expect(res.json()).toMatchObject({
      ruleId: null,
      classification: 'probable_cause',
      confidence: 'medium',
      createdBy: 'default',
    })
    expect((await stored()).at(-1)).toMatchObject({ principal: 'default', created_by: 'default', rule_id: null })
  })

  it('stores a priority of its own and shows it', async () => {
    const res = await t.call('POST', path, {
      json: validRule({ branch: 'OPS-02', ruleName: 'ShardTimeout', pattern: 'ShardTimeoutException', priority: 70 }),
    })
    expect(res.status).toBe(201)
    expect(res.json()).toMatchObject({ branch: 'OPS-02', priority: 70 })
    expect((await stored()).at(-1)).toMatchObject({ branch: 'OPS-02', priority: 70 })
    expect((await t.call('GET', `${path}/OPS-02`)).json()).toMatchObject({ priority: 70 })
  })

  it.each([
    ['a missing field', validRule({ assessment: undefined }), '/assessment'],
    ['an unknown category', validRule({ branch: 'TD-20', category: 'memory' }), '/category'],
    ['confirmed_cause with medium', validRule({ branch: 'TD-20', confidence: 'medium' }), '/confidence'],
    ['probable_cause with high', validRule({ branch: 'TD-20', classification: 'probable_cause' }), '/confidence'],
    [
      'an undetermined classification',
      validRule({ branch: 'TD-20', classification: 'undetermined' }),
      '/classification',
    ],
    ['a branch of the wrong shape', validRule({ branch: 'td-20' }), '/branch'],
    [
      'a ruleName that is not Pascal or camel case',
      validRule({ branch: 'TD-20', ruleName: 'ledger lock' }),
      '/ruleName',
    ],
    ['another targetSource', validRule({ branch: 'TD-20', targetSource: 'remote_api' }), '/targetSource'],
    ['an id in the request', validRule({ branch: 'TD-20', id: 5 }), '/'],
    [
      '11 recommended actions',
      validRule({ branch: 'TD-20', recommendedActions: Array(11).fill('Do it.') }),
      '/recommendedActions',
    ],
    ['a wrong type', validRule({ branch: 'TD-20', recommendedActions: 'Do it.' }), '/recommendedActions'],
    ['an invalid regular expression', validRule({ branch: 'TD-20', pattern: '/(unclosed [a-z/' }), '/pattern'],
    ['a priority of 0', validRule({ branch: 'TD-20', priority: 0 }), '/priority'],
    ['a priority above 100', validRule({ branch: 'TD-20', priority: 101 }), '/priority'],
    ['a fractional priority', validRule({ branch: 'TD-20', priority: 1.5 }), '/priority'],
    ['a priority as text', validRule({ branch: 'TD-20', priority: 'high' }), '/priority'],
  ])('answers 400 invalid_rule_schema for %s and stores nothing', async (_name, body, detailPath) => {
    const before = await stored()
    const res = await t.call('POST', path, { json: JSON.parse(JSON.stringify(body)) })
    const error = expectError(res, 400, 'invalid_rule_schema')
    expect(error.details.map((d: { path: string }) => d.path)).toContain(detailPath)
    expect(await stored()).toEqual(before)
  })

  it('says in words what each refused field must be, never a regular expression, and stores nothing', async () => {
    const before = await stored()
    const res = await t.call('POST', path, {
      json: validRule({
        branch: 'td-20',
        ruleName: 'ledger lock',
        classification: 'cause',
        assessment: undefined,
        id: 5,
      }),
    })
    const body = expectError(res, 400, 'invalid_rule_schema')
    expect(body.message).toBe('The request body does not match the schema.')
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path)
    expect(body.details.sort(byPath)).toEqual(
      [
        { path: '/', message: 'must not have the field "id"' },
        { path: '/assessment', message: 'is missing' },
        { path: '/branch', message: 'must be capital letters, a hyphen and two digits, like OPS-31' },
        {
          path: '/ruleName',
          message: 'must be 3 to 80 letters and digits that start with a letter, like LedgerLockTimeout',
        },
        { path: '/classification', message: 'must be confirmed_cause or probable_cause (in any case)' },
      ].sort(byPath),
    )
    // A name the client chose is quoted short: the answer never grows with what was sent.
    const long = await t.call('POST', path, { json: validRule({ branch: 'TD-20', ['x'.repeat(5000)]: 1 }) })
    const refused = expectError(long, 400, 'invalid_rule_schema')
    expect(refused.details).toEqual([{ path: '/', message: `must not have the field "${'x'.repeat(56)}..."` }])
    expect(long.text.length).toBeLessThan(300)
    expect(await stored()).toEqual(before)
  })

  it.each([
    ['an array of rules', JSON.stringify([validRule({ branch: 'TD-20' })])],
    ['malformed JSON', '{"branch": "TD-20",'],
    ['an empty body', ''],
  ])('answers 400 invalid_rule_schema for %s and stores nothing', async (_name, body) => {
    const before = await stored()
    expectError(
      await t.call('POST', path, { body, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_rule_schema',
    )
    expect(await stored()).toEqual(before)
  })

  it.each([
    ['a built-in branch', { branch: 'TD-01' }, 'rule_branch_conflict', 'TD-01'],
    ['a protected built-in branch of another family', { branch: 'GC-04' }, 'rule_branch_conflict', 'GC-04'],
    ['a stored custom branch', { branch: 'TD-09' }, 'rule_branch_conflict', 'TD-09'],
    ['a built-in rule name', { branch: 'TD-20', ruleName: 'JavaHeapExhausted' }, 'rule_name_conflict', 'TD-02'],
    ['a custom rule name', { branch: 'TD-20', ruleName: 'JdbcPoolExhausted' }, 'rule_name_conflict', 'TD-09'],
    [
      'a built-in rule name in another case',
      { branch: 'TD-20', ruleName: 'javaHEAPexhausted' },
      'rule_name_conflict',
      'TD-02',
    ],
    [
      'a custom rule name in another case',
      { branch: 'TD-20', ruleName: 'jdbcpoolexhausted' },
      'rule_name_conflict',
      'TD-09',
    ],
    [
      'a custom pattern',
      { branch: 'TD-20', ruleName: 'OtherName', pattern: 'java.lang.StackOverflowError' },
      'rule_pattern_conflict',
      undefined,
    ],
    [
      'a built-in signature',
      { branch: 'TD-20', ruleName: 'OtherName', pattern: 'Too many open files' },
      'rule_pattern_conflict',
      'TD-06',
    ],
  ])(
    'answers 409 for %s, naming the rule it conflicts with, and stores nothing',
    async (_name, overrides, code, branch) => {
      const before = await stored()
      for (const query of ['?dryRun=true', '']) {
        const body = expectError(await t.call('POST', `${path}${query}`, { json: validRule(overrides) }), 409, code)
        expect(body.conflictingRule).toEqual({
          id: expect.anything(),
          branch: branch ?? expect.any(String),
          ruleName: expect.any(String),
        })
        expect(body.message).toContain(`(${body.conflictingRule.branch} ${body.conflictingRule.ruleName})`)
      }
      expect(await stored()).toEqual(before)
    },
  )

  it('checks a rule without storing it on ?dryRun=true', async () => {
    const before = await stored()
    const res = await t.call('POST', `${path}?dryRun=true`, {
      json: validRule({
        branch: 'TD-27',
        ruleName: 'DryRunCheck',
        pattern: 'DryRunCheckFailure',
        classification: 'PROBABLE_CAUSE',
        confidence: 'Medium',
      }),
    })
    expect(res.status).toBe(200)
    expect(res.json()).toMatchObject({
      status: 'valid',
      rule: { branch: 'TD-27', ruleName: 'DryRunCheck', classification: 'probable_cause', confidence: 'medium' },
    })
    expect(await stored()).toEqual(before)
    const unsafe = validRule({ branch: 'TD-27', ruleName: 'DryRunCheck', pattern: '/(a+)+$/' })
    expectError(await t.call('POST', `${path}?dryRun=true`, { json: unsafe }), 400, 'unsafe_regex_pattern')
    expectError(await t.call('POST', `${path}?dryRun=yes`, { json: validRule() }), 400, 'invalid_query_parameter')
    expect(await stored()).toEqual(before)
  })

  it.each([
    ['exponential (a+)+', '/(a+)+$/', /^nested quantifier \(a\+\)\+/],
    ['a nested quantifier in a group', '/(?:ERROR [0-9]+)+ failed/', /^nested quantifier \(\?:ERROR \[0-9\]\+\)\+/],
    [
      'polynomial \\s*…\\s*$',
      '/\\s*#\\s*include\\s*$/',
      /^polynomial \(degree \d\) backtracking on the attack string /,
    ],
    ['polynomial .*x.*y', '/.*timeout.*refused/s', /^polynomial \(degree \d\) backtracking on the attack string /],
  ])(
    'answers 400 unsafe_regex_pattern for %s, naming the rule, the pattern and why, and stores nothing',
    async (_name, pattern, reason) => {
      const before = await stored()
      const body = expectError(
        await t.call('POST', path, { json: validRule({ branch: 'TD-21', ruleName: 'Unsafe', pattern }) }),
        400,
        'unsafe_regex_pattern',
      )
      expect(body.message).toContain(`The pattern ${pattern} of rule TD-21 (Unsafe) is unsafe to run over log text: `)
      expect(body.details).toEqual([{ path: '/pattern', message: expect.stringMatching(reason) }])
      expect(body.message).toContain(body.details[0].message)
      expect(await stored()).toEqual(before)
    },
  )

  it('answers 503 pattern_check_unavailable, not a refusal, when the safety proof could not finish in time', async () => {
    // What PatternSafety answers when recheck's wall-clock time-out expires on a busy host
    // (test/unit/pattern-safety.test.ts runs the real time-out).
    vi.spyOn(PatternSafety.prototype, 'verdict').mockResolvedValueOnce({
      safe: false,
      undecided: true,
      reason: 'recheck did not finish its proof within 3000 ms (the host may be busy); try again',
    })
    const before = await stored()
    const rule = validRule({ branch: 'TD-23', ruleName: 'SlowToProve', pattern: '/SlowToProve [0-9]{1,4}/' })
    const res = await t.call('POST', path, { json: rule })
    const body = expectError(res, 503, 'pattern_check_unavailable')
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    expect(body.message).toBe(
      'The safety of the pattern /SlowToProve [0-9]{1,4}/ of rule TD-23 (SlowToProve) could not be decided now: recheck did not finish its proof within 3000 ms (the host may be busy); try again.',
    )
    expect(await stored()).toEqual(before)
    // Trying again later is the remedy.
    vi.restoreAllMocks()
    expect((await t.call('POST', path, { json: rule })).status).toBe(201)
  })

  it('answers 413 for a body over 64 KiB, with Content-Length or chunked, and stores nothing', async () => {
    const before = await stored()
    const big = JSON.stringify(validRule({ branch: 'TD-22', ruleName: 'Big', assessment: 'x'.repeat(70 * 1024) }))
    const headers = { 'content-type': 'application/json' }
    expectError(await t.call('POST', path, { body: big, headers }), 413, 'payload_too_large')
    expectError(await t.call('POST', path, { body: big, headers, chunked: true }), 413, 'payload_too_large')
    expect(await stored()).toEqual(before)
  })

  it('answers 415 for a body that is not JSON, and stores nothing', async () => {
    const before = await stored()
    const res = await t.call('POST', path, {
      body: JSON.stringify(validRule({ branch: 'TD-23' })),
      headers: { 'content-type': 'text/plain' },
    })
    expectError(res, 415, 'unsupported_media_type')
    expect(await stored()).toEqual(before)
  })

  it.each([
    ['PUT', path],
    ['PATCH', path],
    ['DELETE', path],
    ['PUT', `${path}/TD-09`],
    ['PATCH', `${path}/1`],
    ['DELETE', `${path}/TD-01`],
    ['DELETE', `${path}/1/anything`],
  ])('answers %s %s with 405 and Allow, before authentication, changing nothing', async (method, url) => {
    const before = await stored()
    const res = await t.call(method, url, { json: { ruleName: 'Changed' }, headers: { authorization: '' } })
    expectError(res, 405, 'method_not_allowed')
    expect(res.headers.allow).toBe(url === path ? 'GET, POST' : 'GET')
    expect(await stored()).toEqual(before)
  })

  it('refuses UPDATE and DELETE on the rules table itself (append-only triggers)', async () => {
    await expect(t.rows("UPDATE rules SET pattern = 'x' WHERE id = 1")).rejects.toThrow(/append-only/)
    await expect(t.rows('DELETE FROM rules WHERE id = 1')).rejects.toThrow(/append-only/)
    expect((await stored())[0]).toMatchObject({ id: 1, branch: 'TD-09' })
  })

  it('serializes concurrent registrations: of two rules with one branch, exactly one is stored', async () => {
    const [a, b] = await Promise.all([
      t.call('POST', path, { json: validRule({ branch: 'TD-30', ruleName: 'RaceOne', pattern: 'race one happened' }) }),
      t.call('POST', path, { json: validRule({ branch: 'TD-30', ruleName: 'RaceTwo', pattern: 'race two happened' }) }),
    ])
    expect([a.status, b.status].sort()).toEqual([201, 409])
    expect((await stored()).filter((r) => r.branch === 'TD-30')).toHaveLength(1)
  })
})

describe('the cap on custom rules', () => {
  it('answers 409 rule_limit_reached beyond DIAG_MAX_CUSTOM_RULES, storing nothing', async () => {
    // The seed rulepack holds 10 rules: two more fit under a cap of 12.
    const t = await build({ DIAG_MAX_CUSTOM_RULES: '12' })
    try {
      const rule = (i: number) =>
        validRule({ branch: `CAP-${10 + i}`, ruleName: `CappedRule${i}`, pattern: `CappedRuleMarker${i}` })
      expect((await t.call('POST', path, { json: rule(1) })).status).toBe(201)
      expect((await t.call('POST', path, { json: rule(2) })).status).toBe(201)
      const res = await t.call('POST', path, { json: rule(3) })
      expectError(res, 409, 'rule_limit_reached')
      expect(res.json().message).toContain('maximum of 12 custom rules')
      expect(await t.count('rules')).toBe(12)
    } finally {
      await t.close()
    }
  })
})
