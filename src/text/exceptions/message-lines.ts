import { codesIn } from './codes.js'
import { levelOf } from './levels.js'
import type { Line, Lines } from './lines.js'
import { type ClassAt, throwableAt } from './throwable-names.js'
import { isCommandLine, traceLine } from './trace-lines.js'

// The lines a throwable's message spans before its trace (docs/design.md, "Exceptions and
// codes"): a layout that hard-wraps every line at a fixed width (a console 80 or 200
// columns wide, a paste), and a driver whose message runs over unindented lines of its own
// (H2's `Details: "…"` and `SQL statement:` paragraphs, its code on the last one). Each
// look ahead is bounded, so a trace is still walked once.

/** A line shorter than this is not taken for a wrapped one: consoles wrap at 80 columns or more. */
const minWrapWidth = 60
/** Physical lines joined into one at most (a 16 KiB line at 256 columns). */
const maxWrappedLines = 64

/**
 * The width a trace's lines were hard-wrapped at, or 0: the line that starts it is at least
 * 60 characters long and the line before or after it has exactly its length, as every
 * line of a wrapped paste has but its last.
 */
export function wrapWidth(first: Line, lines: Lines): number {
  const width = first.text.length
  if (width < minWrapWidth) return 0
  const next = lines.next(first)
  if (next && next.text.length === width && startsNoRecord(next, first)) return width
  const before = lines.previous(first)
  return before && before.text.length === width && startsNoRecord(first, before) ? width : 0
}

/**
 * `line` can be the rest of `above` cut by a wrap: it is not `above` again (a line logged
 * twice has the same width) and shows no level of its own. Only this first look asks for
 * no level: further on, a wrap may cut a message just before its `FATAL:`.
 */
const startsNoRecord = (line: Line, above: Line) =>
  line.text !== above.text && joinable(line) && levelOf(line.text.slice(0, 40)) === null

/**
 * A line that can be a wrapped line's rest: not a trace line, nor a log record of its own
 * (those start with a time stamp, a bracket or JSON). Its words are not searched for a
 * level: a wrap may cut a message just before its `FATAL:`.
 */
const joinable = (line: Line) => !recordStart(line.text) && traceLine(line.text).kind === 'other'

const recordStart = (text: string) => {
  const first = text.trimStart()[0]
  return first === undefined || '0123456789[<{#'.includes(first)
}

/**
 * The logical line that starts at `line`: with a wrap width, a line of exactly that width
 * is joined with the lines that continue it (no separator: the wrap cut a word), up to and
 * including the first shorter one. The result ends where its last physical line does, so
 * `lines.next` reads on after it.
 */
export function unfold(line: Line | null, lines: Lines, width: number): Line | null {
  if (!line || width === 0 || line.text.length !== width) return line
  let text = line.text
  let last = line
  for (let n = 0; n < maxWrappedLines && last.text.length === width; n++) {
    const next = lines.next(last)
    if (!next || !joinable(next)) break
    text += next.text
    last = next
  }
  return last === line ? line : { text, number: last.number, start: last.start }
}

/** A line of a message's own paragraph: no trace line, no log record, no other throwable. */
function plain(text: string): boolean {
  if (recordStart(text)) return false
  return (
    traceLine(text).kind === 'other' &&
    levelOf(text.slice(0, 40)) === null &&
    !isCommandLine(text) &&
    throwableAt(text) === null
  )
}

/**
 * The unindented lines from `line` on that continue a message, when they end where the
 * trace goes on (a frame, `Caused by:`, `... N more`), or where the excerpt does with the
 * driver's code on their last line (H2's `[40001-176]`): at most `max` of them; none when
 * the run ends in anything else (a log record, another exception, plain lines at the end of
 * the excerpt), since then nothing says they belong to the message.
 */
export function messageRun(line: Line, lines: Lines, width: number, max: number): Line[] {
  const run: Line[] = []
  for (let at: Line | null = line; ; at = unfold(lines.next(at), lines, width)) {
    if (!at) return run.length > 0 && carriesCode((run[run.length - 1] as Line).text) ? run : []
    if (!plain(at.text)) {
      const kind = traceLine(at.text).kind
      return kind === 'frame' || kind === 'cause' || kind === 'suppressed' || kind === 'elided' ? run : []
    }
    if (run.length === max) return []
    run.push(at)
  }
}

const isNameChar = (c: string | undefined) => c !== undefined && /[\w$.]/.test(c)

/**
 * The class a hard-wrapped line starts with, whole: when the wrap cut its name, the line
 * before ends with the name's start (`… o.e.Startup - failed: org.spring` over
 * `framework.beans.factory.BeanCreationException: …`). Null when nothing was cut.
 */
export function wrappedClass(first: Line, lines: Lines, width: number, head: ClassAt): string | null {
  if (width === 0 || head.start !== 0) return null
  const before = lines.previous(first)
  if (!before || before.text.length !== width) return null
  let from = before.text.length
  while (from > 0 && isNameChar(before.text[from - 1])) from--
  const cut = before.text.slice(from)
  // A word without a dot over a name that starts at a root package is a sentence's last word
  // over a whole name (two records of equal length by chance: `… since launch` over
  // `org.apache.…Exception`), not a name's start (`org.spring` over `framework.…`).
  if (!cut.includes('.') && rootPackage.test(head.name)) return null
  return cut.length > 0 ? `${cut}${head.name}` : null
}

/** The first segment of nearly every qualified class name in a Java trace. */
export const rootPackage = /^(?:java|javax|jakarta|sun|com|org|net|io)\./

const carriesCode = (text: string) => {
  const codes = codesIn(text)
  return codes.sqlState !== null || codes.vendorCode !== null
}
