import fnv1a from '@sindresorhus/fnv1a'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { alertIdentity, alertmanagerFingerprint } from '../../src/incidents/alert-identity.js'
import { type IdentityState, type Occurrence, transition } from '../../src/incidents/lifecycle.js'
import { toInstant } from '../../src/instant.js'

describe('toInstant', () => {
  it.each([
    ['2026-11-01T12:00:00+02:00', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T10:00:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01t10:00:00.000z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01 10:00:00+00', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T11:30:00+0130', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T10:00:00.123456789Z', '2026-11-01T10:00:00.123Z'],
    ['2026-11-01T10:00:00.5-00:30', '2026-11-01T10:30:00.500Z'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, instant) => {
    expect(new Date(toInstant(text)).toISOString()).toBe(instant)
  })

  it('refuses what is not RFC 3339', () => {
    expect(() => toInstant('yesterday')).toThrow(RangeError)
  })
})

describe('alert identity', () => {
  it('is the same for the same labels in any order, and differs for any other label set', () => {
    expect(alertIdentity({ a: '1', b: '2' })).toBe(alertIdentity({ b: '2', a: '1' }))
    expect(alertIdentity({ a: '1', b: '2' })).not.toBe(alertIdentity({ a: '1', b: '3' }))
    // Names and values cannot run into each other.
    expect(alertIdentity({ a: 'b', c: '' })).not.toBe(alertIdentity({ a: '', bc: '' }))
  })

  it("computes Alertmanager's fingerprint: FNV-1a 64 over name, 0xff, value, 0xff in name order", () => {
    // The empty label set hashes to the FNV-1a 64 offset basis.
    expect(alertmanagerFingerprint({})).toBe('cbf29ce484222325')
    expect(alertmanagerFingerprint({ b: '2', a: '1' })).toBe(alertmanagerFingerprint({ a: '1', b: '2' }))
    expect(alertmanagerFingerprint({ alertname: 'A' })).toMatch(/^[0-9a-f]{16}$/)
  })

  it('equals FNV-1a 64 as the fnv1a library computes it, for any labels (UTF-8 included)', () => {
    const labelSet = fc.dictionary(fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,20}$/), fc.string({ unit: 'binary' }), {
      maxKeys: 8,
    })
    fc.assert(
      fc.property(labelSet, (labels) => {
        const bytes: number[] = []
        for (const name of Object.keys(labels).sort()) {
          bytes.push(...Buffer.from(name), 0xff, ...Buffer.from(labels[name] as string), 0xff)
        }
        const expected = fnv1a(new Uint8Array(bytes), { size: 64 }).toString(16).padStart(16, '0')
        expect(alertmanagerFingerprint(labels)).toBe(expected)
      }),
      { numRuns: 500 },
    )
  })
})

const occurrence = (over: Partial<Occurrence>): Occurrence => ({
  id: 'o1',
  startsAt: 100,
  status: 'open',
  fired: true,
  firedLate: false,
  lastMailEventId: null,
  startBelieved: true,
  openedAt: 100,
  ...over,
})
// As the ledger reads it: with no occurrence at the start, the open one (at most one is open).
const state = (same?: Occurrence, newest = same, next?: Occurrence, open = newest): IdentityState => ({
  same,
  newest,
  next,
  open: same === undefined && open?.status === 'open' ? open : undefined,
})

describe('lifecycle transitions', () => {
  const firing = { status: 'firing' as const, startsAt: 100, startBelieved: true }
  const resolution = { status: 'resolved' as const, startsAt: 100, startBelieved: true }

  it('opens a new occurrence and supersedes an older open one', () => {
    expect(transition(state(), firing)).toEqual({ kind: 'opened', supersedes: undefined })
    const older = occurrence({ id: 'old', startsAt: 50 })
    expect(transition(state(undefined, older), firing)).toEqual({ kind: 'opened', supersedes: older })
    const closed = occurrence({ id: 'old', startsAt: 50, status: 'resolved' })
    expect(transition(state(undefined, closed), firing)).toEqual({ kind: 'opened', supersedes: undefined })
  })

  it('takes a firing older than a known occurrence as already ended', () => {
    const newer = occurrence({ id: 'new', startsAt: 200 })
    expect(transition(state(undefined, newer, newer), firing)).toEqual({ kind: 'stale_firing', supersededBy: newer })
    expect(newer.startsAt).toBe(200) // its end
  })

  it('repeats nothing: a firing of the open occurrence, a resolution of a resolved one', () => {
    expect(transition(state(occurrence({})), firing).kind).toBe('duplicate')
    expect(transition(state(occurrence({ status: 'resolved' })), resolution).kind).toBe('duplicate')
    expect(transition(state(occurrence({ status: 'superseded' }), occurrence({ id: 'n' })), firing).kind).toBe(
      'duplicate',
    )
  })

  it('re-opens a resolved occurrence that fires again, unless it is no longer the newest or fired late', () => {
    const resolved = occurrence({ status: 'resolved' })
    expect(transition(state(resolved), firing).kind).toBe('refired')
    const later = occurrence({ id: 'n', startsAt: 200 })
    expect(transition(state(resolved, later, later), firing).kind).toBe('duplicate')
    expect(transition(state(occurrence({ status: 'resolved', firedLate: true })), firing).kind).toBe('duplicate')
  })

  it('records a first firing after the resolution as late', () => {
    expect(transition(state(occurrence({ status: 'resolved', fired: false })), firing).kind).toBe('late_firing')
  })

  it('resolves only its own occurrence, and records unknown ones', () => {
    expect(transition(state(occurrence({})), resolution).kind).toBe('resolved')
    expect(transition(state(occurrence({ status: 'superseded' })), resolution).kind).toBe('resolved_superseded')
    const older = occurrence({ id: 'old', startsAt: 50 })
    expect(transition(state(undefined, older), resolution)).toEqual({
      kind: 'unmatched_resolution',
      supersedes: older,
    })
    const newer = occurrence({ id: 'new', startsAt: 200 })
    expect(transition(state(undefined, newer, newer), resolution)).toEqual({
      kind: 'unmatched_resolution',
      supersedes: undefined,
    })
  })

  describe("under Alertmanager's merge rules (a resolution keeps the earliest start)", () => {
    const merged = (startsAt: number, endsAt: number) => ({
      status: 'resolved' as const,
      startsAt,
      startBelieved: true,
      endsAt,
    })

    it('ends the open occurrence that began inside the resolution, with a recovery', () => {
      const open = occurrence({ id: 'open', startsAt: 100 })
      expect(transition(state(undefined, open, open), merged(99, 200))).toEqual({
        kind: 'resolved_merged',
        occurrence: open,
      })
      // Its copy finds it resolved.
      const resolved = occurrence({ id: 'open', startsAt: 100, status: 'resolved' })
      expect(transition(state(undefined, resolved, resolved), merged(99, 200))).toEqual({
        kind: 'duplicate',
        occurrence: resolved,
      })
    })

    it('leaves it open when the resolution ended before it began, or at that instant', () => {
      const open = occurrence({ id: 'open', startsAt: 100 })
      expect(transition(state(undefined, open, open), merged(50, 100)).kind).toBe('unmatched_resolution')
      expect(transition(state(undefined, open, open), merged(50, 80)).kind).toBe('unmatched_resolution')
      // An end that is no end (before the start, a clock far ahead) merges nothing.
      expect(transition(state(undefined, open, open), { ...resolution, startsAt: 50 }).kind).toBe(
        'unmatched_resolution',
      )
    })

    it('ends it also when a firing of the earlier start was filed first as superseded', () => {
      const open = occurrence({ id: 'open', startsAt: 100 })
      const stale = occurrence({ id: 'stale', startsAt: 99, status: 'superseded' })
      expect(transition({ same: stale, newest: open, next: open, open }, merged(99, 200))).toEqual({
        kind: 'resolved_merged',
        occurrence: open,
      })
    })

    it('takes the receipt of an open occurrence whose start was not believed as its start', () => {
      const ahead = occurrence({ id: 'ahead', startsAt: 10_000, startBelieved: false, openedAt: 150 })
      const t = (endsAt: number) => transition(state(undefined, undefined, undefined, ahead), merged(99, endsAt))
      expect(t(200)).toEqual({ kind: 'resolved_merged', occurrence: ahead })
      expect(t(120)).toEqual({ kind: 'unmatched_resolution', supersedes: ahead })
    })
  })

  describe('an occurrence closed as expired', () => {
    const expired = occurrence({ status: 'expired' })

    it('opens again, without a mail, when it is heard firing and is still the newest', () => {
      expect(transition(state(expired), firing)).toEqual({ kind: 'reopened', occurrence: expired })
      const later = occurrence({ id: 'n', startsAt: 200, status: 'resolved' })
      expect(transition(state(expired, later, later), firing).kind).toBe('duplicate')
    })

    it('resolves, with its recovery, when its resolution comes at last', () => {
      expect(transition(state(expired), resolution)).toEqual({ kind: 'resolved', occurrence: expired })
    })
  })

  describe('a start from a clock far ahead (not believed)', () => {
    const ahead = { status: 'firing' as const, startsAt: 10_000, startBelieved: false }

    it('is a copy of the open occurrence, whatever its start', () => {
      const open = occurrence({ id: 'real', startsAt: 50 })
      expect(transition(state(undefined, open), ahead)).toEqual({ kind: 'duplicate', occurrence: open })
    })

    it('opens an occurrence when none is open, which a believed start then closes, earlier or not', () => {
      expect(transition(state(), ahead)).toEqual({ kind: 'opened', supersedes: undefined })
      const unbelieved = occurrence({ id: 'ahead', startsAt: 10_000, startBelieved: false })
      // The ledger never offers an unbelieved occurrence as `next` or `newest`.
      expect(transition(state(undefined, undefined, undefined, unbelieved), firing)).toEqual({
        kind: 'opened',
        supersedes: unbelieved,
      })
    })

    it('never closes another occurrence with a resolution of its own', () => {
      const open = occurrence({ id: 'real', startsAt: 50 })
      expect(
        transition(state(undefined, open), { status: 'resolved', startsAt: 10_000, startBelieved: false }),
      ).toEqual({ kind: 'unmatched_resolution', supersedes: undefined })
    })
  })
})
