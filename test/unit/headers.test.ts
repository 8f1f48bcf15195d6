import { describe, expect, it } from 'vitest'
import { headerValue, messageId } from '../../src/report/headers.js'

describe('headerValue (D23)', () => {
  it('turns every control character into a space and collapses runs of spaces', () => {
    expect(headerValue('a\r\nBcc: x@example.org\tb\u0000c\u007fd  e ')).toBe('a Bcc: x@example.org b c d e')
  })

  it('keeps non-ASCII text as it is', () => {
    expect(headerValue('Grüße 🚀 on app-01')).toBe('Grüße 🚀 on app-01')
  })

  it('cuts a long value with an ellipsis, never inside a surrogate pair', () => {
    expect(headerValue('x'.repeat(10_000), 10)).toBe(`${'x'.repeat(9)}…`)
    // The 9th and 10th UTF-16 units are one emoji: it goes whole, not half.
    const cut = headerValue(`${'x'.repeat(8)}🚀${'y'.repeat(20)}`, 10)
    expect(cut).toBe(`${'x'.repeat(8)}…`)
    expect(cut).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
  })
})

describe('messageId (D24)', () => {
  it('is derived from the event id, so a re-send is recognisably the same message', () => {
    expect(messageId('01a2028c-6451-755f-b14c-28dd78e976c0')).toBe(
      '<01a2028c-6451-755f-b14c-28dd78e976c0@diagnostic-service>',
    )
  })
})
