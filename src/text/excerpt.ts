/**
 * A log excerpt as UTF-8 bytes, with its text decoded only when something asks for it:
 * the automata scan bytes, and most excerpts never need the text (no regular expression
 * to run, no line to redact, no GC event).
 */
export interface Excerpt {
  readonly bytes: Buffer
  readonly text: string
}

export function excerptOf(bytes: Buffer, text?: string): Excerpt {
  let decoded = text
  return {
    bytes,
    get text() {
      decoded ??= bytes.toString('utf8')
      return decoded
    },
  }
}

export const excerptOfText = (text: string): Excerpt => excerptOf(Buffer.from(text, 'utf8'), text)
