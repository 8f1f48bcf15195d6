import { levelOf } from './levels.js'

// The lines of a printed stack trace (Throwable.printStackTrace and the loggers that copy it),
// told apart with index searches: this runs on every line of every trace in the excerpt.
// A prefix before them (a container's name, journal fields, Cloud Foundry's source) is
// allowed, as stack-frames.ts allows it for the scanner.

export type TraceLine =
  /**
   * `at pkg.Class.method(File.java:12)`, or WebLogic's and JRockit's frame without `at`:
   * `frame` is `pkg.Class.method`, the method kept because one class may serve two things
   * (the JDK's `sun.nio.ch.Net.bind` binds a listener's address, its `connect` connects).
   */
  | { kind: 'frame'; frame: string }
  /** `... 12 more`, `... 5 common frames omitted`, a folded run of repeated frames. */
  | { kind: 'elided' }
  /**
   * `Caused by: ` / `Suppressed: ` at `at` (where the class starts), indented by `indent`
   * characters; `Wrapped by: ` where logback prints the root cause first (`%rEx`).
   */
  | { kind: 'cause' | 'suppressed' | 'wrapper'; at: number; indent: number }
  | { kind: 'blank' }
  | { kind: 'other' }

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r'
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'
/** Characters of `java.base/pkg.Class$Inner.method` or `<init>` or `lambda$0`. */
const isFrameChar = (c: number) =>
  (c >= 97 && c <= 122) ||
  (c >= 65 && c <= 90) ||
  (c >= 48 && c <= 57) ||
  c === 95 ||
  c === 36 ||
  c === 46 ||
  c === 47 ||
  c === 60 ||
  c === 62 ||
  c === 64 ||
  c === 45
/** A prefix longer than this is not a prefix: the line is a message. */
const maxPrefix = 200

export function traceLine(text: string): TraceLine {
  let first = 0
  while (first < text.length && isSpace(text[first])) first++
  if (first === text.length) return { kind: 'blank' }
  // Most lines of a trace are frames that start with `at `: decided without searching the line.
  if (text.startsWith('at ', first)) {
    const frame = frameMethod(text, first + 3)
    if (frame) return { kind: 'frame', frame }
  }
  for (const [marker, kind] of markers) {
    const i = text.indexOf(marker)
    if (i !== -1 && i <= maxPrefix) return { kind, at: i + marker.length, indent: i }
  }
  const frame = frameAt(text, first)
  if (frame) return { kind: 'frame', frame }
  const dots = text.indexOf('... ', first)
  if (dots !== -1 && dots <= maxPrefix && isDigit(text[dots + 4])) return { kind: 'elided' }
  return { kind: 'other' }
}

const markers = [
  ['Caused by: ', 'cause'],
  ['Suppressed: ', 'suppressed'],
  ['Wrapped by: ', 'wrapper'],
] as const

/** The method of the frame on this line (`pkg.Class.method`), or null when it is not one. */
function frameAt(text: string, first: number): string | null {
  if (text.startsWith('at ', first)) return frameMethod(text, first + 3)
  for (const marker of ['\tat ', ' at ']) {
    const i = text.indexOf(marker, first)
    if (i !== -1 && i <= maxPrefix) {
      const frame = frameMethod(text, i + marker.length)
      if (frame) return frame
    }
  }
  // Without `at`: indented, and what is in the parentheses is a source position.
  if (first === 0) return null
  const frame = frameMethod(text, first)
  if (!frame) return null
  const open = text.indexOf('(', first)
  const inside = text.slice(open + 1, text.lastIndexOf(')'))
  return sourcePosition.test(inside) ? frame : null
}

/** What a frame's parentheses hold: a source file and line, or the JVM's words for none. */
export const sourcePosition = /\.(?:java|kt|scala|groovy)(?::[\d?]+)?$|^Native Method$|^Unknown Source$/

/** `pkg.Class.method(` from `start`: `pkg.Class.method`, without a module (`java.base/`). */
function frameMethod(text: string, start: number): string | null {
  let i = start
  while (i < text.length && text[i] === ' ') i++
  const from = i
  while (i < text.length && isFrameChar(text.charCodeAt(i))) i++
  if (text[i] !== '(' || text.indexOf(')', i) === -1) return null
  const method = text.slice(from, i)
  const qualified = method.slice(method.lastIndexOf('/') + 1)
  return qualified.lastIndexOf('.') > 0 ? qualified : null
}

/** A JVM command line (`ps`, a start script): its class names are flags and classpath entries, not failures. */
export const isCommandLine = (text: string) =>
  text.includes(' -XX:') || text.includes(' -Xmx') || text.includes(' -classpath ') || text.includes(' -cp ')

/**
 * A line that continues a message before its trace (a driver's second paragraph, a message
 * wrapped by its layout): indented, or after a blank line, and not the start of another
 * log record.
 */
export const continues = (text: string, afterBlank: boolean) => {
  const first = text.trimStart()[0]
  if (first === undefined || '0123456789[<{#'.includes(first) || isCommandLine(text)) return false
  return (afterBlank || text[0] === ' ' || text[0] === '\t') && levelOf(text.slice(0, 40)) === null
}

/**
 * A retry announced: the failure logged with it is not final on its own. A negated one
 * announces the end of the retries (the Snowflake driver's `Stop retrying since elapsed time
 * … has reached timeout`, after which it throws: RestRequest.java in
 * https://github.com/snowflakedb/snowflake-jdbc), so the failure after it is final.
 */
export const retry =
  /(?<!\b(?:stop|stops|stopped|stopping|not|no longer|no more|give up|gave up|giving up) )\bretrying\b|\bwill (?:be )?retr|\bretry (?:attempt|in)\b/i

/**
 * An attempt numbered against its bound (`attempt #1/10 failed`, jcabi-aspects'
 * `@RetryOnFailure`: https://github.com/jcabi/jcabi-aspects/blob/master/src/main/java/com/jcabi/aspects/aj/Repeater.java;
 * `attempt 2 of 3`): a retry loop's attempt before its last is retried by that loop.
 */
export const numberedAttempt = /\battempt #?(\d{1,4}) ?(?:\/|of) ?(\d{1,4})\b/i

/** The line logs an attempt of a retry loop before its last one. */
export function earlierAttempt(text: string): boolean {
  const attempt = numberedAttempt.exec(text)
  return attempt !== null && Number(attempt[1]) < Number(attempt[2])
}
