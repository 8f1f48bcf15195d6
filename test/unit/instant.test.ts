import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAjv } from '../../src/ajv.js'
import { readTokensFile, TokenVerifier } from '../../src/auth/tokens.js'
import { collectSpool } from '../../src/evidence/spool-collector.js'
import { parseInstant, toInstant } from '../../src/instant.js'

const dir = mkdtempSync(join(tmpdir(), 'diag-instant-'))
const dateTime = createAjv().compile({ type: 'string', format: 'date-time' })

/** `instant` (epoch ms, whole seconds or not) written in one of the forms RFC 3339 allows. */
function written(instant: number, form: { separator: string; zone: string; offsetMinutes: number; digits: number }) {
  const local = new Date(instant + form.offsetMinutes * 60_000).toISOString() // YYYY-MM-DDTHH:MM:SS.mmmZ
  const date = local.slice(0, 10)
  const time = local.slice(11, 19)
  const ms = local.slice(20, 23)
  const fraction = form.digits === 0 ? '' : `.${ms.padEnd(form.digits, '0')}`
  const abs = Math.abs(form.offsetMinutes)
  const hh = String(Math.floor(abs / 60)).padStart(2, '0')
  const mm = String(abs % 60).padStart(2, '0')
  const sign = form.offsetMinutes < 0 ? '-' : '+'
  const zone =
    form.zone === 'Z' || form.zone === 'z'
      ? form.zone
      : form.zone === 'hh:mm'
        ? `${sign}${hh}:${mm}`
        : form.zone === 'hhmm'
          ? `${sign}${hh}${mm}`
          : `${sign}${hh}`
  return `${date}${form.separator}${time}${fraction}${zone}`
}

const form = fc.oneof(
  fc.record({
    separator: fc.constantFrom('T', 't', ' '),
    zone: fc.constantFrom('Z', 'z'),
    offsetMinutes: fc.constant(0),
    digits: fc.constantFrom(0, 3, 6, 9),
  }),
  fc.record({
    separator: fc.constantFrom('T', 't', ' '),
    zone: fc.constantFrom('hh:mm', 'hhmm'),
    offsetMinutes: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
    digits: fc.constantFrom(0, 3, 6, 9),
  }),
  fc.record({
    separator: fc.constantFrom('T', 't', ' '),
    zone: fc.constant('hh'),
    offsetMinutes: fc.integer({ min: -23, max: 23 }).map((h) => h * 60),
    digits: fc.constantFrom(0, 3, 6, 9),
  }),
)
// Milliseconds: digits=0 drops them, so the property uses whole seconds there.
const instant = fc.integer({ min: Date.parse('1970-01-01T00:00:00Z'), max: Date.parse('2200-01-01T00:00:00Z') })

describe('one instant parser (issue 26, point 1)', () => {
  it('reads every form the schema accepts as the same instant', () => {
    fc.assert(
      fc.property(instant, form, (ms, f) => {
        const expected = f.digits === 0 ? ms - (((ms % 1000) + 1000) % 1000) : ms
        const text = written(ms, f)
        expect(dateTime(text), text).toBe(true)
        expect(parseInstant(text), text).toBe(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('accepts in the schema exactly what it reads, on strings near the grammar', () => {
    const near = fc
      .tuple(
        fc.constantFrom('2026', '2024', '1900', '2000', '0001'),
        fc.constantFrom('01', '02', '12', '13', '00'),
        fc.constantFrom('01', '28', '29', '30', '31', '32'),
        fc.constantFrom('T', 't', ' ', '\t', '\n', '\u00a0', '_'),
        fc.constantFrom('00', '12', '23', '24'),
        fc.constantFrom('00', '59', '60'),
        fc.constantFrom('00', '59', '60', '61'),
        fc.constantFrom('', '.5', '.123456789', '.'),
        fc.constantFrom('Z', 'z', '+00:00', '+01', '-0130', '+24:00', '+01:60', '', '+1', 'UTC', '-00:01'),
      )
      .map(
        (parts) => `${parts[0]}-${parts[1]}-${parts[2]}${parts[3]}${parts[4]}:${parts[5]}:${parts.slice(6).join('')}`,
      )
    fc.assert(
      fc.property(near, (text) => {
        const read = parseInstant(text)
        expect(dateTime(text), text).toBe(read !== undefined)
        if (read !== undefined) expect(Number.isFinite(read), text).toBe(true)
      }),
      { numRuns: 5000 },
    )
  })

  it.each([
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T18:59:60-05:00', '2017-01-01T00:00:00.000Z'],
    ['2016-12-31T23:59:60.5Z', '2017-01-01T00:00:00.500Z'],
    ['2026-11-01T12:00:00+02', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01 10:00:00Z', '2026-11-01T10:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(dateTime(text)).toBe(true)
    expect(new Date(toInstant(text)).toISOString()).toBe(iso)
  })

  it.each([
    '2026-11-01\t10:00:00Z', // a separator RFC 3339 does not name
    '2026-11-01T10:00:00', // no time zone: not an instant
    '2026-11-01T10:00:60Z', // a leap second where none can stand
    '2026-02-29T10:00:00Z',
    '2026-11-01T10:00:00+24:00',
  ])('refuses %s in the schema and in the parser', (text) => {
    expect(dateTime(text)).toBe(false)
    expect(parseInstant(text)).toBeUndefined()
    expect(() => toInstant(text)).toThrow(RangeError)
  })

  it('a token file expiry with an offset of hours alone expires the token', () => {
    const file = join(dir, 'tokens.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'old', token: 'an-old-token-0000001', scopes: ['read'], expiresAt: '2026-01-01T01:00:00+01' },
      ]),
    )
    const verifier = new TokenVerifier(readTokensFile(file))
    expect(verifier.check('an-old-token-0000001', Date.parse('2025-12-31T23:59:59Z'))).toMatchObject({
      principal: { name: 'old' },
    })
    expect(verifier.check('an-old-token-0000001', Date.parse('2026-01-01T00:00:00Z'))).toEqual({
      refused: 'expired',
      name: 'old',
    })
  })

  it('spool records and the alert start are read the same way whatever their form', () => {
    const spool = join(dir, 'spool')
    mkdirSync(spool)
    const records = [
      { timestamp: '2026-11-22T05:58:00+01', container: 'app-01', exitCode: 137 },
      { timestamp: '2016-12-31T23:59:60Z', container: 'app-01', exitCode: 1 },
      { timestamp: '2026-11-22 04:59:00Z', container: 'app-01', exitCode: 2 },
    ]
    writeFileSync(join(spool, 'events.jsonl'), records.map((r) => JSON.stringify(r)).join('\n'))
    const around = (startsAt: string) =>
      collectSpool(spool, [dir], { container: 'app-01', instance: 'app-01', startsAt }).records.map((r) => r.exitCode)
    expect(around('2026-11-22T05:00:00Z')).toEqual([137, 2])
    expect(around('2026-11-22T06:00:00+01')).toEqual([137, 2])
    expect(around('2017-01-01T01:00:00+01')).toEqual([1])
  })
})
