import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { check } from 'recheck'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { builtinRulesDir, corroboratingEvidence, loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { patternsOf } from '../../src/rules/engine-rules.js'
import { findNestedQuantifier, PatternSafety, recheckOptions } from '../../src/rules/pattern-safety.js'
import { PatternSyntaxError, parsePattern } from '../../src/text/pattern.js'
import { PatternIndex } from '../../src/text/pattern-index.js'

const safety = new PatternSafety()

describe('parsePattern (D19)', () => {
  it('reads /source/flags as a regular expression and anything else as a literal', () => {
    expect(parsePattern('/Deadlock found|ORA-00060/i')).toMatchObject({
      kind: 'regex',
      source: 'Deadlock found|ORA-00060',
      flags: 'i',
    })
    expect(parsePattern('java.lang.StackOverflowError')).toEqual({
      kind: 'literal',
      text: 'java.lang.StackOverflowError',
    })
    // Not of the /…/flags form (g is not an allowed flag): a literal path.
    expect(parsePattern('/opt/app/log')).toEqual({ kind: 'literal', text: '/opt/app/log' })
    expect(parsePattern('/a+b/g')).toEqual({ kind: 'literal', text: '/a+b/g' })
  })

  it('rejects invalid expressions and repeated flags', () => {
    expect(() => parsePattern('/(unclosed/')).toThrow(PatternSyntaxError)
    expect(() => parsePattern('/abc/ii')).toThrow(/repeated/)
  })
})

describe('findNestedQuantifier', () => {
  it.each([
    ['(a+)+', '(a+)+'],
    ['^(a*)*$', '(a*)*'],
    ['(?:x|y+){2,}', '(?:x|y+){2,}'],
    ['(a?)+', '(a?)+'],
    ['((ab)+c)*', '((ab)+c)*'],
    ['(\\d+)*x', '(\\d+)*'],
    ['(?<word>\\w+\\s?)+', '(?<word>\\w+\\s?)+'],
  ])('finds %s', (source, found) => {
    expect(findNestedQuantifier(source)).toBe(found)
  })

  it.each([
    '(a+)?',
    '(ab)+',
    '(?:a|b)*',
    '[(a+)]+',
    '\\(a+\\)+',
    '(a+){1}',
    'x{2,5}(?=y+)',
    '(?:Error|Exception): [0-9]{1,9}',
  ])('accepts %s', (source) => {
    expect(findNestedQuantifier(source)).toBeNull()
  })
})

describe('PatternSafety (recheck, D19)', () => {
  // The reason is the assertion: a refusal must say what is wrong with the pattern, and a
  // proof recheck did not finish in time (the host's condition) is no refusal at all. recheck
  // gets 60 s here, so that a loaded machine decides these the way an idle one does.
  const patient = new PatternSafety({ timeoutMs: 60_000, cacheSize: 100 })
  it.each([
    // Nested quantifiers, found before recheck runs
    ['/^(a+)+$/', /^nested quantifier \(a\+\)\+/],
    ['/(x+x+)+y/', /^nested quantifier \(x\+x\+\)\+/],
    ['/^(\\w+\\s?)*$/', /^nested quantifier \(\\w\+\\s\?\)\*/],
    ['/(.*a){12}/', /^nested quantifier \(\.\*a\)\{12\}/],
    // Exponential
    ['/(a|aa)+$/', /^exponential backtracking on the attack string 'a' \+ 'aaaa'\.repeat\(\d+\)/],
    ['/^(a|a?)+$/', /^nested quantifier \(a\|a\?\)\+/],
    // Polynomial
    ['/\\s*#\\s*include\\s*$/', /^polynomial \(degree \d\) backtracking on the attack string '\\t'\.repeat/],
    ['/a.*b.*c.*d/s', /^polynomial \(degree \d\) backtracking on the attack string 'a'\.repeat\(\d+\) \+ 'b'/],
    ['/^.*error.*timeout.*$/m', /^polynomial \(degree \d\) backtracking on the attack string /],
    ['/(\\d+)\\s+\\d+$/', /^polynomial \(degree \d\) backtracking on the attack string '0'\.repeat/],
    ['/X[^\\n]{0,200}Y/', /^polynomial \(degree \d\) backtracking on the attack string 'X'\.repeat/],
  ])('refuses the ReDoS-prone %s and says why', async (pattern, reason) => {
    const verdict = await patient.verdict(parsePattern(pattern))
    expect(verdict).toEqual({ safe: false, reason: expect.stringMatching(reason) })
  })

  it('calls a proof recheck did not finish in time undecided, a host condition, and does not keep it', async () => {
    // recheck needs about 1.5 s of its own for this one on an idle machine: 1 ms cannot do.
    const hurried = new PatternSafety({ timeoutMs: 1, cacheSize: 10 })
    const pattern = parsePattern('/X[^\\n]{0,200}Y/')
    const first = hurried.verdict(pattern)
    expect(await first).toEqual({
      safe: false,
      undecided: true,
      reason: 'recheck did not finish its proof within 1 ms (the host may be busy); try again',
    })
    expect(hurried.verdict(pattern)).not.toBe(first)
  })

  it('decides a bounded gap within its proven bound without recheck, and one past it with recheck', async () => {
    // recheck cannot finish in 1 ms: a verdict other than undecided did not come from it (bounded-gap.ts).
    const hurried = new PatternSafety({ timeoutMs: 1, cacheSize: 10 })
    expect(await hurried.verdict(parsePattern('/OrderService7\\b.{0,40}rejected/'))).toEqual({ safe: true })
    expect(await hurried.verdict(parsePattern('/OrderService7\\b.{0,45}rejected/'))).toEqual({
      safe: false,
      undecided: true,
      reason: 'recheck did not finish its proof within 1 ms (the host may be busy); try again',
    })
  })

  it("asks recheck for a verdict of counted steps, not of the host's speed", async () => {
    // A host 250 times slower, as recheck's default 250 ms incubation limit sees it when a
    // fuzzing run takes 1 ms too long: the same safe expression comes back polynomial.
    const pattern = 'Caused by: [^\\n]{0,80}Exception'
    const options = recheckOptions(60_000)
    expect(await check(pattern, '', { ...options, incubationTimeout: 1 })).toMatchObject({ status: 'vulnerable' })
    // With no time limit on incubation, only the step limit sends a string to an attack.
    expect(options.incubationTimeout).toBeNull()
    expect(await check(pattern, '', options)).toMatchObject({ status: 'safe' })
  })

  it.each([
    'OutOfMemoryError: Java heap space',
    '/Connection is not available, request timed out after|PoolExhaustedException/',
    '/SocketTimeoutException: (?:Read|connect) timed out/',
    '/ORA-[0-9]{5}/',
    '/^Caused by: java\\.sql\\.SQLException/m',
    '/deadlock detected/i',
    '/Maximum number of threads \\([0-9]{1,9}\\) created for connector/',
  ])('accepts the ordinary %s', async (pattern) => {
    expect(await safety.verdict(parsePattern(pattern))).toEqual({ safe: true })
  })

  it('analyses a source once (the verdict is cached)', () => {
    const pattern = parsePattern('/cached-[0-9]{2} verdict/')
    expect(safety.verdict(pattern)).toBe(safety.verdict(parsePattern('/cached-[0-9]{2} verdict/')))
  })

  it('finds every shipped pattern safe with the API’s check (what lets a start trust them, D29)', async () => {
    // The same analysis and cost budget as POST /api/v1/rules; only recheck's wall-clock
    // patience differs, which decides whether a proof ends, never what it finds.
    const apiCheck = new PatternSafety({ timeoutMs: 60_000, cacheSize: 2000 })
    const patterns: string[] = []
    for (const rule of loadBuiltinRules().rules) patterns.push(...rule.patterns)
    patterns.push(...patternsOf(corroboratingEvidence()))
    const seed = JSON.parse(readFileSync(join(builtinRulesDir, 'seed-rulepack.json'), 'utf8'))
    patterns.push(...seed.map((rule: { pattern: string }) => rule.pattern))
    expect(patterns.length).toBeGreaterThan(40)
    for (const pattern of patterns) {
      expect({ pattern, verdict: await apiCheck.verdict(parsePattern(pattern)) }).toEqual({
        pattern,
        verdict: { safe: true },
      })
    }
  })
})

describe('the cost budget of a linear expression', () => {
  it('refuses /Timeout.{1000}/ with the CPU time it measured: recheck calls it safe, yet it reads 1,000 characters after every occurrence', async () => {
    expect((await check('Timeout.{1000}', '', { timeout: 60_000 })).status).toBe('safe')
    // recheck's proof gets 60 s here, so that a loaded machine does not leave it undecided:
    // the cost budget is what this test is about.
    const patient = new PatternSafety({ timeoutMs: 60_000, cacheSize: 10 })
    const verdict = await patient.verdict(parsePattern('/Timeout.{1000}/'))
    expect(verdict).toEqual({
      safe: false,
      reason: expect.stringMatching(
        /^scanning 512 KiB of text built to be slow for it takes (\d+) ms of CPU time \(the budget is 50 ms\)$/,
      ),
    })
    const ms = Number(/takes (\d+) ms/.exec((verdict as { reason: string }).reason)?.[1])
    expect(ms).toBeGreaterThan(50)
  })

  it.each([
    '/Timeout after [0-9]{1,6} ms/',
    '/Connection to [0-9.]{7,15}:[0-9]{2,5} refused/',
    '/(?:foo|bar)baz[0-9]{1,3}/i',
  ])('accepts the usual %s', async (source) => {
    expect(await safety.verdict(parsePattern(source))).toEqual({ safe: true })
  })

  describe('on a busy host', () => {
    // A busy host takes the CPU away from the scan: each scan below is followed by 80 ms off
    // the CPU (Atomics.wait blocks the thread the way a run queue of other work does). The
    // pattern's cost has not changed, so neither may its verdict; measured in wall-clock
    // time, the scan of a usual pattern looks to cost over 80 ms and is refused.
    const offCpu = new Int32Array(new SharedArrayBuffer(4))
    const realScan = PatternIndex.prototype.scan
    beforeEach(() => {
      vi.spyOn(PatternIndex.prototype, 'scan').mockImplementation(function (this: PatternIndex, text: string) {
        const found = realScan.call(this, text)
        Atomics.wait(offCpu, 0, 0, 80)
        return found
      })
    })
    afterEach(() => vi.restoreAllMocks())

    it('counts the CPU time of the scan, not the time it waited: a usual pattern is still accepted', async () => {
      const fresh = new PatternSafety({ timeoutMs: 60_000, cacheSize: 10 })
      expect(await fresh.verdict(parsePattern('/Timeout after [0-9]{1,6} ms/'))).toEqual({ safe: true })
      expect(PatternIndex.prototype.scan).toHaveBeenCalled()
    })

    it('still refuses /Timeout.{1000}/ for what it costs', async () => {
      const fresh = new PatternSafety({ timeoutMs: 60_000, cacheSize: 10 })
      expect(await fresh.verdict(parsePattern('/Timeout.{1000}/'))).toMatchObject({
        safe: false,
        reason: expect.stringMatching(/ms of CPU time \(the budget is 50 ms\)$/),
      })
    })
  })
})
