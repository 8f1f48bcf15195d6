import { describe, expect, it } from 'vitest'
import { redactBytes, redactLine, secretMarkers, unblockPrivateKeys } from '../../src/evidence/redact.js'
import { candidateLines, candidateWords, lineStarts } from '../../src/text/exceptions/candidates.js'
import { readExceptions } from '../../src/text/exceptions/read-exceptions.js'
import { parsePattern } from '../../src/text/pattern.js'
import { type PatternEntry, PatternIndex } from '../../src/text/pattern-index.js'
import { loadCorpus } from '../corpus/evaluate.js'
import { secretCorpus } from '../fixtures/secret-corpus.js'
import { secretNegatives, secretShapes } from '../fixtures/secret-shapes.js'
import { random } from '../helpers/random.js'

// Patterns that match ordinary text, text next to secrets, the secrets themselves (which
// must never match), and what redaction writes.
const patterns = [
  'OutOfMemoryError: Java heap space',
  'ERROR',
  'changeit',
  'hunter2',
  '[REDACTED]',
  'password=',
  '/Bearer \\[REDACTED\\]/',
  '/REDACTED\\]-JWT/',
  '/Grüße|ORA-[0-9]{5}/',
  'Connection refused',
  '/^\\tat /m',
]

const fragments = [
  ...secretCorpus.map((sample) => sample.line).filter((line) => !line.includes('PRIVATE KEY')),
  // Keys whose values sit on the next lines: records of several lines.
  ...secretShapes.map((sample) => sample.line),
  ...secretNegatives.map((sample) => sample.line),
  'java.lang.OutOfMemoryError: Java heap space',
  '2026-11-22 ERROR [main] ORA-00060: deadlock detected',
  'Grüße aus Köln – Connection refused',
  '\tat com.example.Export.render(Export.java:212)',
  'INFO processed order 4711 for the session of nobody',
  'see http://example.com/api/orders and https://user:hunter2@example.com/x',
  '',
]

describe('PatternIndex.scanRewriting (redaction and matching in one pass)', () => {
  const entries: PatternEntry[] = patterns.map((pattern, i) => ({ key: `p${i}`, pattern: parsePattern(pattern) }))
  const plain = new PatternIndex(entries)
  const marked = new PatternIndex(entries, secretMarkers)

  it('gives the excerpt and the matches of redacting first and matching after, on 1,000 generated logs', () => {
    const next = random(20261122)
    for (let round = 0; round < 1000; round++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
        const a = fragments[Math.floor(next() * fragments.length)] as string
        const b = fragments[Math.floor(next() * fragments.length)] as string
        return next() < 0.3 ? `${a} ${b}` : a
      })
      const raw = unblockPrivateKeys(Buffer.from(lines.join('\n'), 'utf8'))
      const expectedExcerpt = redactBytes(raw)
      const expected = plain.scanExcerpt(expectedExcerpt)
      const actual = marked.scanRewriting(raw, redactLine)
      expect({ round, excerpt: actual.excerpt.text, matches: Object.fromEntries(actual.matches) }).toEqual({
        round,
        excerpt: expectedExcerpt.text,
        matches: Object.fromEntries(expected),
      })
    }
  })

  it('never matches a secret, and matches what redaction wrote', () => {
    const raw = Buffer.from('ERROR login failed password=hunter2\nnothing here\nAuthorization: Bearer abcdefghijklmnop')
    const { excerpt, matches } = marked.scanRewriting(raw, redactLine)
    expect(excerpt.text).not.toContain('hunter2')
    expect(matches.has('p3')).toBe(false) // hunter2
    expect(matches.get('p4')?.line).toBe(1) // [REDACTED]
    expect(matches.get('p1')?.line).toBe(1) // ERROR, on a rewritten line
  })

  it('rewrites a key and the lines holding its value as one record, each match at its own line', () => {
    const raw = Buffer.from('ERROR one\n    - name: DB_PASSWORD\n      value: "hunter2"\nERROR two\nlast line')
    const { excerpt, matches } = marked.scanRewriting(raw, redactLine)
    expect(excerpt.text).toBe('ERROR one\n    - name: DB_PASSWORD\n      value: "[REDACTED]"\nERROR two\nlast line')
    expect(matches.has('p3')).toBe(false) // hunter2, on a line without a marker
    expect(matches.get('p4')?.line).toBe(3) // [REDACTED]
    expect(matches.get('p1')).toMatchObject({ line: 1, repeated: true }) // ERROR, after the record too
  })

  it('falls back to matching the whole rewritten excerpt when lines could shift', () => {
    const raw = Buffer.from('a token=abc here\nERROR one\nlast line')
    // A rule word over two lines, and a rewrite that adds a line: both take the slow path.
    const spanning = new PatternIndex([{ key: 'two', pattern: parsePattern('one\nlast') }], secretMarkers)
    expect(spanning.scanRewriting(raw, redactLine).matches.get('two')?.line).toBe(2)
    const growing = marked.scanRewriting(raw, (line) => `${line}\nERROR added`)
    expect(growing.excerpt.text).toBe('a token=abc here\nERROR added\nERROR one\nlast line')
    expect(growing.matches.get('p1')?.line).toBe(2)
  })

  it('notes the exception reader’s candidate lines of the redacted excerpt in the same pass, on 1,000 generated logs', () => {
    // The reader's words as line words: the lines the reader's own pass would find, and the same records.
    const withWords = new PatternIndex(entries, secretMarkers, candidateWords)
    const traces = [
      'Caused by: java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available',
      '2026-11-22 WARN SQL Error: 0, SQLState: 40001',
      'connect ECONNREFUSED 10.0.0.7:5432 password=hunter2',
      'org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection',
      '\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:181)',
      'an Exception with token=abc in it',
    ]
    const next = random(20261124)
    let noted = 0
    for (let round = 0; round < 1000; round++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
        const pool = next() < 0.4 ? traces : fragments
        const a = pool[Math.floor(next() * pool.length)] as string
        const b = fragments[Math.floor(next() * fragments.length)] as string
        return next() < 0.3 ? `${a} ${b}` : a
      })
      const raw = unblockPrivateKeys(Buffer.from(lines.join('\n'), 'utf8'))
      const scanned = withWords.scanRewriting(raw, redactLine)
      const without = marked.scanRewriting(raw, redactLine)
      expect(scanned.excerpt.text).toBe(without.excerpt.text)
      expect(Object.fromEntries(scanned.matches)).toEqual(Object.fromEntries(without.matches))
      if (scanned.wordLines === undefined) continue
      noted++
      const { bytes } = scanned.excerpt
      expect({ round, starts: lineStarts(bytes, scanned.wordLines) }).toEqual({ round, starts: candidateLines(bytes) })
      expect(readExceptions(scanned.excerpt, { candidateLines: scanned.wordLines })).toEqual(
        readExceptions(scanned.excerpt),
      )
    }
    expect(noted).toBeGreaterThan(900)
  })

  it('reads the same exceptions from the lines the scan noted as from its own pass, on every corpus excerpt', () => {
    const withWords = new PatternIndex(entries, secretMarkers, candidateWords)
    let read = 0
    for (const { id, log } of loadCorpus()) {
      const scanned = withWords.scanRewriting(unblockPrivateKeys(Buffer.from(log, 'utf8')), redactLine)
      expect(scanned.wordLines, id).toBeDefined()
      const records = readExceptions(scanned.excerpt)
      read += records.length
      expect({ id, records: readExceptions(scanned.excerpt, { candidateLines: scanned.wordLines }) }).toEqual({
        id,
        records,
      })
    }
    expect(read).toBeGreaterThan(100)
  })
})
