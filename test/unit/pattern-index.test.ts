import { describe, expect, it } from 'vitest'
import { AhoCorasick } from '../../src/text/aho-corasick.js'
import { parsePattern } from '../../src/text/pattern.js'
import { type PatternEntry, PatternIndex } from '../../src/text/pattern-index.js'
import { requiredLiterals } from '../../src/text/required-literals.js'
import { random } from '../helpers/random.js'

describe('requiredLiterals', () => {
  it.each([
    ['Deadlock found|ORA-00060', '', [['Deadlock found'], ['ORA-00060']]],
    ['SocketTimeoutException: (?:Read|connect) timed out', '', [['SocketTimeoutException: ', ' timed out']]],
    ['Maximum number of threads \\([0-9]{1,9}\\) created', '', [['Maximum number of threads (', ') created']]],
    ['abc?def', '', [['def']]], // `ab` is only 2 characters; `c` is optional
    ['ab+cde', '', [['cde']]],
    ['\\d{123}xyz', '', [['xyz']]],
    ['x{0,3}yyy', '', [['yyy']]],
    ['^Caused by: java\\.sql\\.SQLException', 'm', [['Caused by: java.sql.SQLException']]],
  ])('finds the literals every match of %s contains', (source, flags, expected) => {
    expect(requiredLiterals(source, flags)).toEqual(expected)
  })

  it.each([
    ['ab|cd', ''], // an alternative without 3 literal characters
    ['\\w+@\\w+', ''],
    ['(foo|bar)baz|x', ''],
    ['ÉCHEC de connexion', 'i'], // non-ASCII under i: the index folds ASCII only
  ])('gives no prefilter for %s', (source, flags) => {
    expect(requiredLiterals(source, flags)).toBeNull()
  })
})

describe('AhoCorasick', () => {
  it('reports every occurrence with its start, folding ASCII case', () => {
    const hits: Array<[number, number]> = []
    new AhoCorasick(['he', 'she', 'his', 'hers']).scan(Buffer.from('uSHErs his'), (id, start) => {
      hits.push([id, start])
      return undefined
    })
    expect(hits).toEqual([
      [1, 1],
      [0, 2],
      [3, 2],
      [2, 7],
    ])
  })

  it('handles non-ASCII text and words, reporting byte offsets', () => {
    const hits: number[] = []
    new AhoCorasick(['échec', 'ü']).scan(Buffer.from('Connexion: échec – Grüße'), (id, start) => {
      hits.push(id, start)
      return undefined
    })
    expect(hits).toEqual([0, 11, 1, 24])
  })

  it('reports the same hits from the WebAssembly loop as from the JavaScript loop', () => {
    const next = random(4711)
    const alphabet = ['a', 'b', 'A', 'B', 'ü', 'Ü', 'é', '\n', ' ', 'x', '€', 'Zz']
    const pick = (n: number) =>
      Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)] as string).join('')
    for (let round = 0; round < 600; round++) {
      // Every other round no word holds a newline: the WebAssembly loop then walks the two
      // halves of the text (split after a newline) apart.
      const word = () => {
        const w = pick(1 + Math.floor(next() * 4))
        return round % 2 ? w.replaceAll('\n', '') || 'x' : w
      }
      const words = Array.from({ length: 1 + Math.floor(next() * 8) }, word)
      const text = Buffer.from(pick(Math.floor(next() * (round % 3 ? 200 : 2000))))
      const hits = (automaton: AhoCorasick) => {
        const all: Array<[number, number]> = []
        automaton.scan(text, (id, start) => void all.push([id, start]))
        return all
      }
      expect({ round, words, hits: hits(new AhoCorasick(words)) }).toEqual({
        round,
        words,
        hits: hits(new AhoCorasick(words, 0)),
      })
    }
  })

  it('stops when the callback says so, in either loop', () => {
    for (const wasmUpTo of [0, 100]) {
      const seen: number[] = []
      new AhoCorasick(['a'], wasmUpTo).scan(Buffer.from('aaaa'), (_id, start) => {
        seen.push(start)
        return start === 1
      })
      expect(seen).toEqual([0, 1])
    }
  })
})

const patterns = [
  'java.net.ConnectException: Connection refused',
  'OutOfMemoryError: Java heap space',
  'ERROR',
  'timed out',
  '/SocketTimeoutException: (?:Read|connect) timed out/',
  '/Deadlock found|ORA-00060|deadlock detected/',
  '/deadlock DETECTED/i',
  '/^FATAL/m',
  '/pool-[0-9]{1,3}-thread/',
  '/Found [0-9]+ deadlocks\\./',
  '/\\bWARN\\b.*retry/',
  '/x{2,}y/',
  '/a.b/s',
  '/ab|cd/',
  '/Ünïcödé failure/u',
  '/connection (?:reset|refused) by peer/i',
]

const fragments = [
  'java.net.ConnectException: Connection refused',
  'java.net.ConnectException: Connection ',
  'OutOfMemoryError: Java heap space',
  'outofmemoryerror: java heap space',
  'ERROR',
  'error',
  'timed out',
  'SocketTimeoutException: Read timed out',
  'SocketTimeoutException: write timed out',
  'Deadlock found',
  'ORA-0006',
  'ORA-00060',
  'DeadLock Detected',
  'FATAL',
  '\nFATAL',
  'pool-12-thread',
  'pool--thread',
  'Found 2 deadlocks.',
  'Found deadlocks.',
  'WARN will retry',
  'WARNING retry',
  'xxy',
  'xy',
  'a\nb',
  'ab',
  'cd',
  'Ünïcödé failure',
  'ÜNÏCÖDÉ FAILURE',
  'cödé FAILURE',
  'Connection RESET by peer',
  ' ',
  '\n',
  'lorem ipsum ',
  'x',
]

function naive(entries: PatternEntry[], text: string): Map<string, number> {
  const result = new Map<string, number>()
  for (const { key, pattern } of entries) {
    const index = pattern.kind === 'literal' ? text.indexOf(pattern.text) : (pattern.regex.exec(text)?.index ?? -1)
    if (index === -1) continue
    const line = text.slice(0, index).split('\n').length
    const known = result.get(key)
    if (known === undefined || line < known) result.set(key, line)
  }
  return result
}

describe('PatternIndex', () => {
  const entries: PatternEntry[] = patterns.map((pattern, i) => ({ key: `p${i % 13}`, pattern: parsePattern(pattern) }))
  const index = new PatternIndex(entries)

  it('agrees with naive matching, pattern by pattern, on 2,000 generated excerpts', () => {
    const next = random(20261122)
    for (let round = 0; round < 2000; round++) {
      const length = 1 + Math.floor(next() * 40)
      const text = Array.from({ length }, () => fragments[Math.floor(next() * fragments.length)]).join('')
      const expected = naive(entries, text)
      const actual = new Map([...index.scan(text)].map(([key, match]) => [key, match.line]))
      expect({ round, text, matches: Object.fromEntries(actual) }).toEqual({
        round,
        text,
        matches: Object.fromEntries(expected),
      })
    }
  })

  it('reports the first matching line, cut to 500 characters', () => {
    const text = ['INFO start', `ERROR ${'z'.repeat(600)}`, 'ERROR again'].join('\n')
    const match = new PatternIndex([{ key: 'e', pattern: parsePattern('ERROR') }]).scan(text).get('e')
    expect(match?.line).toBe(2)
    expect(match?.text).toHaveLength(500)
    expect(match?.text.startsWith('ERROR zzz')).toBe(true)
  })

  it('carries up to 3 lines either side, the same for a literal and a regular expression', () => {
    const lines = [
      '',
      'one',
      'ERROR ü two',
      'three',
      `four ${'é'.repeat(700)}`,
      'five',
      'six',
      'ERROR seven',
      'eight',
      '',
    ]
    const text = lines.join('\n')
    const index = new PatternIndex([
      { key: 'literal', pattern: parsePattern('ERROR') },
      { key: 'regex', pattern: parsePattern('/ERROR [ü]/') },
      { key: 'late', pattern: parsePattern('eight') },
    ])
    const found = index.scan(text)
    const expected = [1, 2, 3, 4, 5, 6].map((number) => ({ number, text: (lines[number - 1] as string).slice(0, 500) }))
    // `ERROR` is on lines 3 and 9; `ERROR ü` only on line 3.
    expect(found.get('literal')).toEqual({
      line: 3,
      text: 'ERROR ü two',
      context: expected,
      repeated: true,
      causeDepth: 0,
    })
    expect(found.get('regex')).toEqual({ ...found.get('literal'), repeated: false })
    expect(found.get('late')?.context.map((line) => line.number)).toEqual([6, 7, 8, 9, 10])
  })
})

describe('a repeated signature', () => {
  const log = [
    'java.lang.OutOfMemoryError: Java heap space twice: java.lang.OutOfMemoryError: Java heap space',
    'INFO an unrelated line',
    'Caused by: java.net.ConnectException: Connection refused',
    'Caused by: java.net.ConnectException: Connection refused',
  ].join('\n')
  const index = PatternIndex.fromSources(
    ['OutOfMemoryError: Java heap space', '/ConnectException: Connection refused/'].map((source) => ({
      key: source,
      source,
    })),
  )

  it('is one that matched two lines, in every scan', () => {
    for (const found of [index.scan(log), index.scanRewriting(Buffer.from(log), (line) => line).matches]) {
      // Twice on one line: one line.
      expect(found.get('OutOfMemoryError: Java heap space')).toMatchObject({ line: 1, repeated: false })
      expect(found.get('/ConnectException: Connection refused/')).toMatchObject({ line: 3, repeated: true })
    }
  })
})
