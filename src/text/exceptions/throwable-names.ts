// Exception class names as a log prints them, found by hand rather than by a regular
// expression: `[\w$]*(?:Exception|Error)` backtracks on long identifiers, and this runs on
// every candidate line of a 512 KiB excerpt.

export interface ClassAt {
  name: string
  start: number
  end: number
}

const suffixes = ['Exception', 'Error', 'Throwable'] as const
/** At most this many suffix occurrences are looked at on one line. */
const maxTries = 16

const code = (text: string, i: number) => text.charCodeAt(i)
const isLower = (c: number) => c >= 97 && c <= 122
const isUpper = (c: number) => c >= 65 && c <= 90
const isIdentifierChar = (c: number) => isLower(c) || isUpper(c) || (c >= 48 && c <= 57) || c === 95 || c === 36
/** What may follow a class name printed as an exception: end, `: message`, or closing punctuation. */
const terminators = new Set([':', '"', "'", '>', ']', ')', ';', ',', '}', '|', '\\'])

/** `pkg.sub.Name` or `pkg.Outer$Inner`: a package of lower-case segments, a class that starts upper-case. */
function isQualified(name: string): boolean {
  const segments = name.split('.')
  if (segments.length < 2 || segments.some((s) => s.length === 0)) return false
  const last = segments[segments.length - 1] as string
  return isLower(code(segments[0] as string, 0)) && isUpper(code(last, 0))
}

/** Whether the name at [start, end) stands as a printed exception does: followed by nothing, `:` or punctuation. */
function standsAlone(text: string, end: number): boolean {
  if (end >= text.length) return true
  const c = text[end] as string
  if (terminators.has(c)) return true
  // JBoss MSC prints its StartException as `…StartException in service jboss.x: message`.
  if (text.startsWith(' in service ', end)) return true
  if (c !== ' ' && c !== '\t' && c !== '\r') return false
  let i = end
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++
  return i === text.length || text[i] === ':'
}

/**
 * The first qualified throwable class name in `text` at or after `from` that stands as an
 * exception is printed (`java.net.ConnectException: Connection refused`, or alone at the
 * end). Not a frame (`…Exception.<init>(`), a logger (`…ExceptionHelper`), a flag
 * (`-XX:+HeapDumpOnOutOfMemoryError`) or a path (`/lib/foo.Error`).
 */
export function throwableAt(text: string, from = 0): ClassAt | null {
  let cursor = from
  for (let tries = 0; tries < maxTries; tries++) {
    let at = -1
    let suffix = ''
    for (const s of suffixes) {
      const i = text.indexOf(s, cursor)
      if (i !== -1 && (at === -1 || i < at)) {
        at = i
        suffix = s
      }
    }
    if (at === -1) return null
    const end = at + suffix.length
    cursor = end
    const next = code(text, end)
    if (isIdentifierChar(next) || next === 46) continue // `Errors$…`, `Exception.<init>`
    let start = at
    while (start > 0 && (isIdentifierChar(code(text, start - 1)) || code(text, start - 1) === 46)) start--
    const name = text.slice(start, end)
    if (!isQualified(name) || text[start - 1] === '/' || text[start - 1] === '-' || text[start - 1] === '+') continue
    if (standsAlone(text, end)) return { name, start, end }
  }
  return null
}

/** The message after a class name: the text after its `: `, trimmed. */
export function messageAfter(text: string, end: number): string {
  let i = end
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++
  if (text[i] !== ':') return ''
  return text.slice(i + 1).trim()
}
