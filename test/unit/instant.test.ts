import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAjv, loadSchema, requestValidation } from '../../src/ajv.js'
import { readTokensFile, TokenVerifier } from '../../src/auth/tokens.js'
import { collectSpool } from '../../src/evidence/spool-collector.js'
import { toAlertEvents, type WebhookPayload } from '../../src/http/alerts/alert-events.js'
import { parseInstant, toInstant } from '../../src/instant.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { EventWriter } from '../../src/store/sqlite/event-writer.js'
import { alert, webhook } from '../helpers/alerts.js'
import { form, instant, written } from '../helpers/instants.js'

const dir = mkdtempSync(join(tmpdir(), 'diag-instant-'))
const dateTime = createAjv().compile({ type: 'string', format: 'date-time' })

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

describe('one instant, one occurrence, one evidence window (issue 26, point 1)', () => {
  const validate = createAjv(requestValidation).compile<WebhookPayload>(
    loadSchema('alertmanager-webhook-v4.schema.json'),
  )
  const spool = join(dir, 'property-spool')
  mkdirSync(spool)
  // Records 29 minutes before and 9 after a whole minute: inside the spool window either way.
  const base = Date.parse('2026-11-22T05:00:00Z')
  writeFileSync(
    join(spool, 'events.jsonl'),
    [-29, -31, 9, 11]
      .map((m) =>
        JSON.stringify({ timestamp: new Date(base + m * 60_000).toISOString(), container: 'app-01', exitCode: m }),
      )
      .join('\n'),
  )

  it('files every form of one start as one incident and reads the same evidence for each', async () => {
    const db = openDatabase(join(mkdtempSync(join(dir, 'db-')), 'property.db'))
    const writer = new EventWriter(db, { queueCapacity: 100_000 })
    let id = 0
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: -600, max: 600 }),
          fc.array(form, { minLength: 2, maxLength: 6 }),
          async (minutes, forms) => {
            const startsAt = base + minutes * 60_000
            const alertId = String(id++)
            const incidents = new Set<string>()
            const evidence = new Set<string>()
            for (const f of forms) {
              const text = written(startsAt, f)
              const payload: unknown = webhook([alert({ id: alertId, startsAt: text })])
              expect(validate(payload), text).toBe(true)
              const events = toAlertEvents(payload as WebhookPayload)
              expect(events[0]?.startsAt).toBe(startsAt)
              const outcome = await writer.submit({ receiver: 'r', groupKey: 'g', principal: 'p', alerts: events })
              if (outcome.kind !== 'accepted') throw new Error(outcome.kind)
              incidents.add(outcome.events[0]?.incidentId as string)
              const records = collectSpool(spool, [dir], { container: 'app-01', instance: 'app-01', startsAt: text })
              evidence.add(JSON.stringify(records.records))
            }
            expect(incidents.size).toBe(1)
            expect(evidence.size).toBe(1)
          },
        ),
        { numRuns: 150 },
      )
    } finally {
      db.close()
    }
  })
})
