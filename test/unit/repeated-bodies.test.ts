import { describe, expect, it } from 'vitest'
import { createAjv, loadSchema, requestValidation } from '../../src/ajv.js'
import type { WebhookPayload } from '../../src/http/alerts/alert-events.js'
import { RepeatedBodies } from '../../src/http/alerts/repeated-bodies.js'
import { alert, webhook } from '../helpers/alerts.js'

// Whether a repeat is a duplicate is the store's decision, tested where the store is
// (test/http/incident-lifecycle.test.ts re-fires a byte-identical body after its resolution).

const text = (id: string, extra: Record<string, unknown> = {}) => JSON.stringify(webhook([alert({ id, ...extra })]))

/** A body as the route sees it the second time its text comes (the first time it is only noted). */
function seenTwice(repeats: RepeatedBodies, t: string): unknown {
  repeats.remember(t, JSON.parse(t))
  return repeats.remember(t, JSON.parse(t))
}

describe('RepeatedBodies', () => {
  it('gives back the very body parsed from the same text, frozen to its leaves, from its second time on', () => {
    const repeats = new RepeatedBodies()
    const once = repeats.remember(text('a'), JSON.parse(text('a')))
    expect(Object.isFrozen(once)).toBe(false)
    expect(repeats.lookup(text('a'))).toBeUndefined()
    const first = repeats.remember(text('a'), JSON.parse(text('a'))) as WebhookPayload
    expect(repeats.lookup(text('a'))).toBe(first)
    expect(repeats.lookup(text('b'))).toBeUndefined()
    expect(() => {
      ;(first.alerts[0]?.labels as Record<string, string>).alertname = 'changed'
    }).toThrow(TypeError)
    expect(Object.isFrozen(first.alerts[0]?.annotations)).toBe(true)
  })

  it('keeps no body over 64 KiB, and forgets the least recently seen past 2 Mi characters', () => {
    const repeats = new RepeatedBodies()
    const big = text('big', { annotations: { blob: 'x'.repeat(70_000) } })
    seenTwice(repeats, big)
    expect(repeats.lookup(big)).toBeUndefined()

    const pad = 'y'.repeat(60_000)
    const texts = Array.from({ length: 40 }, (_, i) => text(`n${i}`, { annotations: { pad } }))
    for (const t of texts.slice(0, 30)) seenTwice(repeats, t)
    repeats.lookup(texts[0] as string) // seen again: now the most recent
    for (const t of texts.slice(30)) seenTwice(repeats, t)
    const kept = texts.filter((t) => repeats.lookup(t) !== undefined)
    expect(kept.reduce((sum, t) => sum + t.length, 0)).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(kept).toContain(texts[0])
    expect(kept).toContain(texts[39])
    expect(kept).not.toContain(texts[1])
  })

  it('validates a remembered body once, any other body every time, and reports the errors', () => {
    const repeats = new RepeatedBodies()
    const schemaCheck = createAjv(requestValidation).compile(loadSchema('alertmanager-webhook-v4.schema.json'))
    let calls = 0
    const counted = Object.assign(
      (data: unknown) => {
        calls++
        const ok = schemaCheck(data)
        counted.errors = schemaCheck.errors
        return ok
      },
      { errors: null as unknown },
    )
    const validate = repeats.validator(counted as unknown as typeof schemaCheck)

    const remembered = seenTwice(repeats, text('v'))
    expect([validate(remembered), validate(remembered), calls]).toEqual([true, true, 1])
    const fresh = JSON.parse(text('v'))
    expect([validate(fresh), validate(fresh), calls]).toEqual([true, true, 3])

    const badText = text('bad', { status: 'pending' })
    const bad = seenTwice(repeats, badText)
    expect(validate(bad)).toBe(false)
    expect(validate.errors?.[0]?.instancePath).toBe('/alerts/0/status')
    expect(validate(bad)).toBe(false)
    expect(calls).toBe(5)
  })

  it("computes a remembered body's alert events once, frozen", () => {
    const repeats = new RepeatedBodies()
    const body = seenTwice(repeats, text('e')) as WebhookPayload
    const events = repeats.eventsOf(body)
    expect(repeats.eventsOf(body)).toBe(events)
    expect(Object.isFrozen(events[0])).toBe(true)
    expect(events[0]?.identity).toMatch(/^[0-9a-f]{64}$/)
    const fresh = JSON.parse(text('e')) as WebhookPayload
    expect(repeats.eventsOf(fresh)).not.toBe(repeats.eventsOf(fresh))
    expect(repeats.eventsOf(fresh)).toEqual(events)
  })
})
