import type { ValidateFunction } from 'ajv'
import type { AlertEventInput } from '../../store/sqlite/event-writer.js'
import { toAlertEvents, type WebhookPayload } from './alert-events.js'

// Alertmanager sends a group's notification again every repeat_interval, byte for byte
// the same while nothing in the group changed, so most webhook requests repeat one seen
// before. A repeated body is parsed, validated and turned into alert events once more; its
// later copies reuse that work (docs/design.md, D32). Whether the alerts are duplicates is
// still decided by the store, request by request. A remembered body and its events are
// frozen: no request can change what another one reads.

/** Larger bodies (many alerts) are parsed each time: the memory is better spent on many small ones. */
const maxBodyChars = 64 * 1024
const maxTotalChars = 2 * 1024 * 1024

/**
 * A text seen once is kept without its body: a stream of distinct notifications (a storm of
 * new alerts) then costs a map entry each, not a frozen copy of every body kept alive.
 */
const seenOnce = Symbol('seen once')

export class RepeatedBodies {
  private readonly byText = new Map<string, object | typeof seenOnce>()
  private totalChars = 0
  private readonly valid = new WeakSet<object>()
  private readonly events = new WeakMap<object, AlertEventInput[]>()

  /** The body parsed earlier from the same text (and now the most recent), if any. */
  lookup(text: string): object | undefined {
    const body = this.byText.get(text)
    if (body === undefined || body === seenOnce) return undefined
    this.touch(text, body)
    return body
  }

  /**
   * Notes a body just parsed from `text`; the second time the text comes, keeps the body,
   * frozen. Forgets the least recently seen texts past the bound.
   */
  remember(text: string, body: unknown): unknown {
    if (text.length > maxBodyChars || typeof body !== 'object' || body === null) return body
    const known = this.byText.get(text)
    if (known === undefined) {
      this.byText.set(text, seenOnce)
      this.totalChars += text.length
      for (const oldest of this.byText.keys()) {
        if (this.totalChars <= maxTotalChars) break
        this.byText.delete(oldest)
        this.totalChars -= oldest.length
      }
      return body
    }
    if (known !== seenOnce) return known
    deepFreeze(body)
    this.touch(text, body)
    return body
  }

  /** Makes `text` the most recently seen (a Map iterates in insertion order). */
  private touch(text: string, value: object): void {
    this.byText.delete(text)
    this.byText.set(text, value)
  }

  /**
   * `validate`, which remembers the remembered (frozen) bodies it found valid: the same
   * object cannot have changed since.
   */
  validator(validate: ValidateFunction): ValidateFunction {
    const valid = this.valid
    const check = ((data: unknown) => {
      if (typeof data === 'object' && data !== null && valid.has(data)) {
        check.errors = null
        return true
      }
      const ok = validate(data)
      check.errors = validate.errors
      if (ok && typeof data === 'object' && data !== null && Object.isFrozen(data)) valid.add(data)
      return ok
    }) as ValidateFunction
    check.errors = null
    return check
  }

  /** The alert events of a valid body, computed once for a remembered one. */
  eventsOf(body: WebhookPayload): AlertEventInput[] {
    const known = this.events.get(body)
    if (known) return known
    const events = toAlertEvents(body)
    if (Object.isFrozen(body)) {
      for (const event of events) Object.freeze(event)
      this.events.set(body, Object.freeze(events) as AlertEventInput[])
    }
    return events
  }
}

function deepFreeze(value: object): void {
  Object.freeze(value)
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child)
  }
}
