import type { Excerpt } from '../excerpt.js'
import { candidateLines, lineStarts } from './candidates.js'
import { lineCodes } from './codes.js'
import { driverMessageAt } from './driver-messages.js'
import { escapedTrace, jsonRecord, type NamedThrowable } from './json-layouts.js'
import { jvmReasonAt } from './jvm-reasons.js'
import { levelOf } from './levels.js'
import { FieldLines, type Line, type Lines, TextLines } from './lines.js'
import { messageRun, unfold, wrappedClass, wrapWidth } from './message-lines.js'
import { namelessCause } from './nameless-causes.js'
import { nestedHeaderEnd } from './nested-headers.js'
import { quotedCauseOf } from './quoted-causes.js'
import { type ExceptionRecord, type LogLevel, readerBounds, type ThrowableText } from './records.js'
import { type ClassAt, throwableAt } from './throwable-names.js'
import { type Building, bound, cut, cutMessage, deepestCodes, finish, implied } from './throwables.js'
import { continues, earlierAttempt, isCommandLine, retry, traceLine } from './trace-lines.js'

export type { ExceptionRecord } from './records.js'

export interface ReaderOptions {
  /**
   * Package prefixes that name a component (a JDBC driver, a pool, a resolver): a frame
   * that runs in one is noted on its throwable (`frames`), for the rules to say whose
   * failure it is (docs/design.md, "Ranking").
   */
  componentPrefixes?: readonly string[]
  /**
   * The 1-based lines that hold a candidate word, when the caller's own pass noted them
   * (candidates.ts: `candidateWords`); otherwise the reader finds them with a pass of its own.
   */
  candidateLines?: readonly number[]
}

/**
 * The exceptions of a (redacted) log excerpt (docs/design.md, "Exceptions and codes"): each
 * logged throwable with its message, `Caused by:` chain, suppressed ones, the codes they
 * carry and the level they were logged at, in plain, JSON-escaped, JSON-line and wrapped
 * layouts. Linear: one automaton pass finds the candidate lines, each trace is walked once.
 */
export function readExceptions(excerpt: Excerpt, options: ReaderOptions = {}): ExceptionRecord[] {
  const known = options.candidateLines
  const candidates = known ? lineStarts(excerpt.bytes, known) : candidateLines(excerpt.bytes)
  // Most excerpts hold no candidate: their text is never decoded.
  if (candidates.length === 0) return []
  const reader = new Reader(options)
  const { lines, bytes, starts } = known ? fromLineBefore(excerpt, known, candidates) : wholeText(excerpt, candidates)
  let after = -1
  for (const { start, number } of lines.locate(bytes, starts)) {
    if (start <= after) continue
    after = reader.readAt(lines.at(start, number), lines).start
  }
  return reader.records()
}

const wholeText = (excerpt: Excerpt, candidates: number[]) => ({
  lines: new TextLines(excerpt.text),
  bytes: excerpt.bytes,
  starts: candidates,
})

/**
 * The text from the line before the first candidate (the reader reads a record's lines and
 * the one line above it, never further up), decoded alone: when an excerpt's exceptions are
 * near its end, as an alert's usually are, most of it is never decoded.
 */
function fromLineBefore(excerpt: Excerpt, lines: readonly number[], candidates: number[]) {
  const first = Math.max(1, (lines[0] as number) - 1)
  const from = lineStarts(excerpt.bytes, [first])[0] ?? 0
  const bytes = excerpt.bytes.subarray(from)
  return {
    lines: new TextLines(bytes.toString('utf8'), first),
    bytes,
    starts: candidates.map((start) => start - from),
  }
}

/**
 * A record read but not yet built: the walk consumes every trace, but only the records
 * kept (the first and the last ones) are built, so an error storm costs its walk alone.
 */
interface Pending {
  line: number
  build: () => ExceptionRecord
  /** The line a report shows, when it is not the record's own (a JSON line). */
  text?: string
}

class Reader {
  private readonly first: Pending[] = []
  private readonly last: Pending[] = []
  private readonly prefixes = new Map<string, string[]>()

  constructor(options: ReaderOptions) {
    for (const prefix of options.componentPrefixes ?? []) {
      const key = prefix.split('.', 1)[0] as string
      this.prefixes.set(key, [...(this.prefixes.get(key) ?? []), prefix])
    }
  }

  records(): ExceptionRecord[] {
    return [...this.first, ...this.last].map(({ build, text }) => {
      const record = build()
      if (text !== undefined) record.text = text
      return record
    })
  }

  private push(record: Pending): void {
    if (this.first.length < readerBounds.records / 4) this.first.push(record)
    else {
      if (this.last.length >= readerBounds.records - readerBounds.records / 4) this.last.shift()
      this.last.push(record)
    }
  }

  /** Reads what starts at `line`; returns the last line it consumed. */
  readAt(line: Line, lines: Lines, level?: LogLevel | null): Line {
    const { text } = line
    const json = level === undefined ? jsonRecord(text) : null
    if (json) {
      this.readJson(line, json)
      return line
    }
    const escaped = escapedTrace(text)
    if (escaped) {
      this.readField(line, escaped, level ?? levelOf(text))
      return line
    }
    if (isCommandLine(text)) return line
    const kind = traceLine(text)
    const head = throwableAt(text, kind.kind === 'other' || kind.kind === 'frame' ? 0 : (kind as { at: number }).at)
    if (!head) {
      const codes = lineCodes(text)
      if (codes)
        this.push({
          line: line.number,
          build: () => ({
            ...this.recordAt(line, lines, text.length, line, level),
            // A line of codes is a log line of its own: the line before it is another record's.
            owner: null,
            class: null,
            message: cutMessage(text),
            ...codes,
            frames: [],
            causes: [],
            suppressed: [],
          }),
        })
      else this.readReason(line, lines, text, level)
      return line
    }
    // A driver's header of the trace printed under it (nested-headers.ts): the trace is the record.
    return nestedHeaderEnd(line, lines, head) ?? this.readTrace(line, lines, head, level)
  }

  /**
   * A message printed without its class that only one class is thrown with (a JVM error's
   * reason, jvm-reasons.ts; a driver's own template, driver-messages.ts): that class, marked as inferred.
   */
  private readReason(line: Line, lines: Lines | null, text: string, level: LogLevel | null | undefined): void {
    const reason = jvmReasonAt(text) ?? driverMessageAt(text)
    if (!reason) return
    this.push({
      line: line.number,
      build: () => ({
        ...this.recordAt(line, lines, reason.start, line, level),
        ...finish({ class: reason.class, message: reason.message, frames: [] }),
        causes: [],
        suppressed: [],
        classFromReason: true,
      }),
    })
  }

  private readJson(line: Line, json: NonNullable<ReturnType<typeof jsonRecord>>): void {
    if (json.trace) this.readField(line, json.trace, json.level)
    else if (json.chain) this.pushChain(line, json.chain, json.level)
    else if (json.message && throwableAt(json.message)) this.readField(line, json.message.split('\n'), json.level)
    else if (json.message) this.readReason(line, null, json.message, json.level)
  }

  /** The lines of one field, read like an excerpt of their own, at the field's line. */
  private readField(line: Line, texts: readonly string[], level: LogLevel | null): void {
    const field = new FieldLines(texts, line.number)
    let after = -1
    for (const fieldLine of field.all()) {
      if (fieldLine.start <= after) continue
      after = this.readAt({ ...fieldLine, text: fieldLine.text }, field, level).start
    }
    // Each record of the field reports the JSON line, as the report shows it.
    for (const pending of [...this.first, ...this.last])
      if (pending.line === line.number) pending.text = cut(line.text, readerBounds.lineChars)
  }

  private pushChain(line: Line, chain: NamedThrowable[], level: LogLevel | null): void {
    if (chain.length === 0) return
    this.push({
      line: line.number,
      build: () => {
        const [head, ...causes] = chain.map((t) => finish({ class: t.class, message: t.message, frames: [] }))
        return {
          ...(head as ThrowableText),
          ...deepestCodes(head as ThrowableText, causes),
          ...this.recordAt(line, null, 0, line, level),
          causes: bound(causes),
          suppressed: [],
        }
      },
    })
  }

  /** A trace from its first line: the throwable, the lines that continue its message, frames, causes, suppressed. */
  private readTrace(first: Line, lines: Lines, head: ClassAt, level: LogLevel | null | undefined): Line {
    // A hard-wrapped layout: the trace's lines are read joined back (message-lines.ts).
    const width = wrapWidth(first, lines)
    const headLine = unfold(first, lines, width) as Line
    const chain = implied(headLine.text, head)
    const top = chain[0] as Building
    top.class = wrappedClass(first, lines, width, head) ?? top.class
    const causes: Building[] = chain.slice(1)
    const suppressed: Building[] = []
    let current: Building = top
    // The throwables printed on the line a message continues: each one's message runs to its end.
    let onLine: Building[] = chain
    let suppressedIndent = -1
    let rootFirst = false
    let continuation = 0
    let framesSeen = false
    let blank = false
    let last = headLine
    for (
      let line = unfold(lines.next(headLine), lines, width), n = 0;
      line && n < readerBounds.traceLines;
      line = unfold(lines.next(line), lines, width), n++
    ) {
      const kind = traceLine(line.text)
      if (kind.kind === 'frame') {
        this.noteFrame(current, kind.frame)
        framesSeen = true
      } else if (kind.kind === 'cause' || kind.kind === 'suppressed' || kind.kind === 'wrapper') {
        const at = throwableAt(line.text, kind.at)
        // A cause whose toString() does not print its class (nameless-causes.ts).
        const unnamed =
          at || kind.kind !== 'cause' ? null : namelessCause(line.text, kind.at, lines.next(line)?.text ?? null)
        if (!at && !unnamed) break
        const found = at ? implied(line.text, at) : [unnamed as Building]
        onLine = kind.kind === 'suppressed' ? found.slice(0, 1) : found
        if (kind.kind === 'wrapper') {
          rootFirst = true
          causes.push(...found)
          current = found[found.length - 1] as Building
        } else if (kind.kind === 'suppressed') {
          suppressedIndent = kind.indent
          if (suppressed.length < readerBounds.suppressed) suppressed.push(found[0] as Building)
          current = found[0] as Building
        } else if (suppressedIndent >= 0 && kind.indent > suppressedIndent) {
          current = found[0] as Building // a cause of a suppressed throwable: its frames are not the chain's
        } else {
          suppressedIndent = -1
          // A cause already read from a message (`…Exception: java.net.ConnectException: …`) is the same throwable.
          const last = causes[causes.length - 1]
          if (last?.implied && last.class === found[0]?.class) causes.pop()
          causes.push(...found)
          current = found[found.length - 1] as Building
        }
        framesSeen = false
        continuation = 0
      } else if (kind.kind === 'elided') {
        framesSeen = true
      } else if (kind.kind === 'blank' && !framesSeen && continuation < readerBounds.continuationLines) {
        blank = true
        continuation++
      } else if (!framesSeen && continuation < readerBounds.continuationLines && continues(line.text, blank)) {
        continueMessages(onLine, [line.text])
        continuation++
      } else if (!framesSeen && continuation === 0) {
        // A message's own unindented paragraphs (H2's), when the trace goes on after them.
        const run = messageRun(line, lines, width, readerBounds.messageLines)
        if (run.length === 0) break
        continueMessages(
          onLine,
          run.map((l) => l.text),
        )
        continuation = readerBounds.continuationLines
        line = run[run.length - 1] as Line
      } else break
      last = line
    }
    // Root cause first (`Wrapped by:`): the chain is read outermost first like any other.
    const printed = [top, ...causes]
    const outermostFirst = rootFirst ? printed.reverse() : printed
    this.push({
      line: first.number,
      build: () => {
        // No cause in view: a wrapper that quotes its cause's message may still show it (quoted-causes.ts).
        const quoted = outermostFirst.length === 1 ? quotedCauseOf(outermostFirst[0] as Building) : null
        const inferred = quoted !== null || outermostFirst.some((t) => t.inferred)
        const [record, ...rest] = [...outermostFirst, ...(quoted ? [quoted] : [])].map(finish) as [
          ThrowableText,
          ...ThrowableText[],
        ]
        const tail = bound(rest)
        return {
          ...record,
          ...deepestCodes(record, tail),
          ...this.recordAt(first, lines, head.start, last, level),
          causes: tail,
          suppressed: suppressed.map(finish),
          ...(inferred ? { classFromReason: true as const } : {}),
        }
      },
    })
    return last
  }

  /** `frame` is `pkg.Class.method`: a prefix may name a package, a class or one method. */
  private noteFrame(throwable: Building, frame: string): void {
    if (throwable.frames.length >= readerBounds.frames) return
    const dot = frame.indexOf('.')
    for (const prefix of this.prefixes.get(dot === -1 ? frame : frame.slice(0, dot)) ?? []) {
      if (frame.startsWith(prefix) && !throwable.frames.includes(prefix)) throwable.frames.push(prefix)
    }
  }

  /** Where a record is and how it was logged: its level from its line's prefix or the line that owns the trace. */
  private recordAt(first: Line, lines: Lines | null, column: number, last: Line, level: LogLevel | null | undefined) {
    const before = lines?.previous(first) ?? null
    // The line before owns the trace when the trace's own line logs no level (a bare
    // exception line, or one behind a journal's or container's prefix).
    const ownLevel = levelOf(first.text.slice(0, column))
    const owner = before && ownLevel === null && traceLine(before.text).kind === 'other' ? before : null
    // A retry is announced on the line that logs the failure, or on the line that owns its trace;
    // an attempt's number only on its own line (the line above may be the attempt before).
    const around = [first.text, before?.text ?? ''].map((t) => t.slice(0, readerBounds.lineChars))
    const own = [first.text, owner?.text ?? ''].map((t) => t.slice(0, readerBounds.lineChars))
    return {
      line: first.number,
      end: last.number,
      owner: owner?.number ?? null,
      text: cut(first.text, readerBounds.lineChars),
      level: level ?? ownLevel ?? (owner ? levelOf(owner.text) : null),
      retried: around.some((t) => retry.test(t)) || own.some(earlierAttempt),
    }
  }
}

/** Lines that continue a message, appended to each throwable printed on the line it started on. */
function continueMessages(throwables: readonly Building[], texts: readonly string[]): void {
  const more = texts.map((t) => t.trim()).join(' ')
  for (const t of throwables) t.message = `${t.message} ${more}`.trim()
}
