import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { check } from 'recheck'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { findNestedQuantifier, PatternSafety } from '../../src/rules/pattern-safety.js'
import { PatternSyntaxError, parsePattern } from '../../src/text/pattern.js'

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
  it.each([
    // Exponential
    '/^(a+)+$/',
    '/(x+x+)+y/',
    '/^(\\w+\\s?)*$/',
    '/(a|aa)+$/',
    '/^(a|a?)+$/',
    '/(.*a){12}/',
    // Polynomial
    '/\\s*#\\s*include\\s*$/',
    '/a.*b.*c.*d/s',
    '/^.*error.*timeout.*$/m',
    '/(\\d+)\\s+\\d+$/',
    '/X[^\\n]{0,200}Y/',
  ])('rejects the ReDoS-prone %s', async (pattern) => {
    const verdict = await safety.verdict(parsePattern(pattern))
    expect(verdict.safe).toBe(false)
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

  it('finds every shipped signature and seed pattern safe', async () => {
    const patterns: string[] = []
    for (const rule of loadBuiltinRules().rules) patterns.push(...rule.patterns)
    const seed = JSON.parse(readFileSync(join(packageRoot, 'builtin-rules', 'seed-rulepack.json'), 'utf8'))
    patterns.push(...seed.map((rule: { pattern: string }) => rule.pattern))
    expect(patterns.length).toBeGreaterThan(40)
    for (const pattern of patterns) {
      expect({ pattern, verdict: await safety.verdict(parsePattern(pattern)) }).toEqual({
        pattern,
        verdict: { safe: true },
      })
    }
  })
})

describe('the cost budget of a linear expression', () => {
  it('refuses /Timeout.{1000}/: recheck calls it safe, yet it reads 1,000 characters after every occurrence', async () => {
    expect((await check('Timeout.{1000}', '', { timeout: 10_000 })).status).toBe('safe')
    // recheck's proof gets the same 10 s here, so that a loaded machine does not refuse it
    // for being slow to prove: the cost budget is what this test is about.
    const patient = new PatternSafety({ timeoutMs: 10_000, cacheSize: 10 })
    const verdict = await patient.verdict(parsePattern('/Timeout.{1000}/'))
    expect(verdict).toMatchObject({ safe: false, reason: expect.stringMatching(/the budget is 50 ms/) })
  })

  it.each([
    '/Timeout after [0-9]{1,6} ms/',
    '/Connection to [0-9.]{7,15}:[0-9]{2,5} refused/',
    '/(?:foo|bar)baz[0-9]{1,3}/i',
  ])('accepts the usual %s', async (source) => {
    expect(await safety.verdict(parsePattern(source))).toEqual({ safe: true })
  })
})
