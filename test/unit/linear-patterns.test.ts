import fc from 'fast-check'
import { check } from 'recheck'
import { describe, expect, it } from 'vitest'
import { maxWaysAtAPosition, provenLinear } from '../../src/rules/linear-patterns.js'
import { recheckOptions } from '../../src/rules/pattern-safety.js'

// The proof that spares recheck (docs/design.md, "What a rule may cost") must never accept an
// expression recheck refuses: held against recheck itself on random flat expressions.

describe('flat expressions proven linear without recheck', () => {
  it('proves the shapes operators write: literals around classes, alternatives, bounded and separated loops', () => {
    for (const [source, flags] of [
      ['BENCH-7: (?:timeout|refused) talking to shard-[0-9]{1,3}', ''],
      ['BENCH-7: (?:timeout|refused) talking to shard-[0-9]+', ''],
      ['Job 7 failed after [0-9]+ attempts?', 'i'],
      ['(?:pool|queue)-7 (?:is )?(?:full|exhausted)', ''],
      ['\\bE7[A-Z]{2}[0-9]{3}\\b', ''],
      ['Connection to [0-9.]{7,15}:[0-9]{2,5} refused', ''],
      ['Q[a-z]+X[a-z]+y', ''],
      ['ORA-\\d{5}|SQLSTATE\\[\\w+\\]', ''],
      ['timeout after \\d+ ms waiting for pool-\\d+', ''],
    ]) {
      expect(provenLinear(source as string, flags as string), source).toBe(true)
    }
  })

  it('leaves to recheck loops that can trade text, and everything outside the flat subset', () => {
    for (const [source, flags] of [
      ['[0-9]+ attempts?', ''], // the search's own loop and [0-9]+ trade digits
      ['x\\d+\\d+y', ''],
      ['a.*b.*c', ''],
      ['x\\d+(?:ab)?\\d+y', ''],
      ['x[b-z]*q+y', ''],
      ['Q[a-z]+X[a-z]+y', 'i'], // under i, X lies in [a-z] too
      ['ERROR \\[[^\\]]+\\] Connection refused', ''], // every character before the loop lies in [^\]]
      ['(a+)+', ''],
      ['(?:a|b)*c', ''],
      ['(a)\\1', ''],
      ['(?=a)b', ''],
      ['a\\k<x>', ''],
      ['\\u{61}', 'u'],
      ['OrderService7\\b.{0,40}rejected', ''], // a bounded gap of any character: recheck fuzzes it
      ['X[^\\n]{0,200}Y', ''], // recheck's fuzzing calls it polynomial
      ['x\\d{0,2000}y', ''], // more ways at a position than the bound
      ['x(?:a|b){2}y', ''],
    ]) {
      expect(provenLinear(source as string, flags as string), source).toBe(false)
    }
    expect(maxWaysAtAPosition).toBe(1000)
  })

  it('never proves an expression recheck refuses (property, against recheck on random flat expressions)', async () => {
    const atom = fc.constantFrom('a', 'b', 'A', '[ab]', '[^a]', '[a-c]', '\\d', '\\w', '\\s', '.', '\\.', '1', ' ')
    const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '{2}', '{1,3}', '{2,}', '*?', '+?', '{0,40}')
    const group = fc.constantFrom('(?:ab|c)', '(?:a|b)?', '(x|a1)', '(?:b|)')
    const assertion = fc.constantFrom('^', '$', '\\b')
    const item = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(atom, quantifier).map(([a, q]) => a + q) },
      { weight: 1, arbitrary: group },
      { weight: 1, arbitrary: assertion },
    )
    const sequence = fc.array(item, { minLength: 1, maxLength: 6 }).map((items) => items.join(''))
    const expression = fc.record({
      sequences: fc.array(sequence, { minLength: 1, maxLength: 2 }),
      flags: fc.constantFrom('', 'i', 's', 'is'),
    })
    const seen = { proven: 0, refusedByRecheck: 0 }
    await fc.assert(
      fc.asyncProperty(expression, async ({ sequences, flags }) => {
        const source = sequences.join('|')
        const verdict = await check(source, flags, recheckOptions(20_000))
        if (verdict.status === 'vulnerable') seen.refusedByRecheck++
        if (!provenLinear(source, flags)) return
        seen.proven++
        expect(verdict.status, `/${source}/${flags}`).toBe('safe')
      }),
      { numRuns: 250 },
    )
    // The property met both sides: expressions proven, and expressions recheck refuses.
    expect(seen.proven).toBeGreaterThanOrEqual(25)
    expect(seen.refusedByRecheck).toBeGreaterThanOrEqual(50)
  }, 300_000)
})
