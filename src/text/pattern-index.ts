import { AhoCorasick } from './aho-corasick.js'
import { type Excerpt, excerptOf, excerptOfText } from './excerpt.js'
import { type Pattern, parsePattern } from './pattern.js'
import { requiredLiterals } from './required-literals.js'
import { isFrameAt, isFrameAtText, isFrameSegment } from './stack-frames.js'
import { joinWrappedRecords, mayHoldWrappedRecords } from './wrapped-records.js'

export interface PatternEntry {
  /** What a match reports: a built-in branch or `custom-<id>`; several patterns may share one. */
  key: string
  pattern: Pattern
}

export interface ContextLine {
  /** 1-based line number in the excerpt. */
  number: number
  /** The line, cut to 500 characters. */
  text: string
}

export interface PatternMatch {
  /** 1-based line number of the first match in the excerpt. */
  line: number
  /** That line, cut to 500 characters. */
  text: string
  /** The matched line with up to `contextLines` lines either side, as the report shows it. */
  context: ContextLine[]
  /** Whether the pattern matched another line too (a repeated signature corroborates it). */
  repeated: boolean
  /**
   * How deep in its stack trace's `Caused by:` chain the line is: 0 for a message, n for
   * the nth cause (docs/design.md, "Ranking").
   */
  causeDepth: number
}

export const contextLines = 3
const maxLineChars = 500
/** 500 UTF-16 code units take at most 1,500 bytes (with a margin for a cut character). */
const maxLineBytes = 2000

/**
 * Rewrites a record of a log excerpt (redaction): a line that holds a marker, or that line
 * and the lines after it that `linesAfter` joined to it (a key whose value sits on the next
 * lines), joined by `\n`. It must not add or remove a line.
 */
export interface LineRewriter {
  (record: string): string
  /** How many lines after a marked line may belong to its record, given the line's end (its last 256 bytes). */
  linesAfter?: (lineEnd: string) => number
}

/** A marked line's end, as `linesAfter` sees it. */
const lineEndBytes = 256

/** What scanRewriting finds: the rewritten excerpt, the rules' matches, and the lines holding a line word. */
export interface RewritingScan {
  excerpt: Excerpt
  matches: Map<string, PatternMatch>
  /** The 1-based lines of the excerpt that hold one of the index's line words, ascending; undefined when unknown. */
  wordLines: number[] | undefined
}

/** A pattern as written in a rule (`literal` or `/regex/flags`), under its key. */
export interface PatternSource {
  key: string
  source: string
}

type Trigger = { kind: 'literal'; entry: number; exact: Buffer } | { kind: 'required'; entry: number }

/** A regular expression runs when, for one of its alternatives, every required literal occurred. */
interface Prefilter {
  entry: number
  alternatives: number[][] // word ids
}

/**
 * Which patterns of the catalogue match an evidence excerpt, computed once per excerpt
 * rather than one scan per rule: one Aho-Corasick pass finds every literal pattern and
 * every literal a regular expression requires; only regular expressions whose required
 * literal occurs (or that have none) then run. Immutable: a new catalogue builds a new one.
 */
export class PatternIndex {
  private readonly automaton: AhoCorasick
  private readonly triggers: Trigger[] = []
  private readonly alwaysRun: number[] = []
  private readonly prefilters: Prefilter[] = []

  static fromSources(
    sources: readonly PatternSource[],
    markers: readonly string[] = [],
    lineWords: readonly string[] = [],
  ): PatternIndex {
    return new PatternIndex(
      sources.map(({ key, source }) => ({ key, pattern: parsePattern(source) })),
      markers,
      lineWords,
    )
  }

  /** Word ids from here on are `markers` (scanRewriting), not rule words. */
  private readonly markerBase: number
  /** Word ids from here on are `lineWords`: the lines holding one are noted (scanRewriting). */
  private readonly lineWordBase: number
  /** A rule word spanning lines would defeat the line-by-line bookkeeping of scanRewriting. */
  private readonly multiLineWords: boolean

  /**
   * `markers`: words that make a line need rewriting before it is matched (the words a
   * secret needs, for redaction); see scanRewriting. `lineWords`: words (on one line, case
   * folded) whose lines of the rewritten excerpt scanRewriting notes in the same pass (the
   * exception reader's candidate lines, text/exceptions/candidates.ts).
   */
  constructor(
    private readonly entries: readonly PatternEntry[],
    markers: readonly string[] = [],
    lineWords: readonly string[] = [],
  ) {
    const words: string[] = []
    entries.forEach((entry, index) => {
      const { pattern } = entry
      if (pattern.kind === 'literal') {
        words.push(pattern.text)
        this.triggers.push({ kind: 'literal', entry: index, exact: Buffer.from(pattern.text, 'utf8') })
        return
      }
      const alternatives = requiredLiterals(pattern.source, pattern.flags)
      if (alternatives === null) {
        this.alwaysRun.push(index)
        return
      }
      const ids = alternatives.map((literals) =>
        literals.map((literal) => {
          words.push(literal)
          this.triggers.push({ kind: 'required', entry: index })
          return words.length - 1
        }),
      )
      this.prefilters.push({ entry: index, alternatives: ids })
    })
    this.multiLineWords = words.some((word) => word.includes('\n'))
    this.markerBase = words.length
    this.lineWordBase = words.length + markers.length
    this.automaton = new AhoCorasick([...words, ...markers, ...lineWords])
  }

  /** The first matching line of every key. */
  scan(text: string): Map<string, PatternMatch> {
    return this.scanExcerpt(excerptOfText(text))
  }

  /** The same, over bytes: the text is decoded only if a regular expression has to run. */
  scanExcerpt(excerpt: Excerpt): Map<string, PatternMatch> {
    // Matched on a copy whose wrapped records are joined (same length, wrapped-records.ts);
    // lines and their context are taken from the excerpt as read.
    const joined = joinWrappedRecords(excerpt.bytes)
    const bytes = joined ?? excerpt.bytes
    const offsets = new Map<string, number>() // key -> byte offset of its first literal match
    const repeated = new Set<string>() // keys a literal matched on two lines
    const seenWords = new Set<number>()
    this.automaton.scan(bytes, (id, start) => {
      if (id >= this.markerBase) return undefined
      const trigger = this.triggers[id] as Trigger
      if (trigger.kind === 'required') {
        seenWords.add(id)
        return undefined
      }
      const { key } = this.entries[trigger.entry] as PatternEntry
      const known = offsets.get(key)
      // Nothing left to learn: the first line is known, and so is a second one.
      if (known !== undefined && start >= known && repeated.has(key)) return undefined
      // The automaton folds case; a literal pattern is case-sensitive.
      if (!bytes.subarray(start, start + trigger.exact.length).equals(trigger.exact) || isFrameAt(bytes, start))
        return undefined
      if (known === undefined) offsets.set(key, start)
      else {
        if (onOtherLines(bytes, known, start)) repeated.add(key)
        if (start < known) offsets.set(key, start)
      }
      return undefined
    })
    const found = withRepeats(locate(excerpt.bytes, offsets, 'offset'), repeated)
    return this.withRegexMatches(excerpt, joined ? excerptOf(joined) : excerpt, seenWords, found)
  }

  /**
   * Matches raw log bytes whose lines holding a marker must be rewritten first (redaction),
   * in one automaton pass instead of two: the pass finds the rule words and the marked
   * lines; `rewrite` changes those lines and the lines its `linesAfter` joins to them (it
   * must not add or remove a line), and only they are scanned again. The result is what
   * scanExcerpt gives on the rewritten excerpt, which is returned with it.
   */
  scanRewriting(raw: Buffer, rewrite: LineRewriter): RewritingScan {
    const firstLine = new Map<string, number>() // key -> first line of a literal match
    // Lines of the rewritten excerpt holding a line word: unmarked lines as read, rewritten ones from their second scan.
    const wordLines = new Set<number>()
    let lineHasWord = false
    const repeated = new Set<string>() // keys a literal matched on two lines
    const seenWords = new Set<number>()
    // Records to rewrite: from `line` to `last`, bytes `start` to `end`.
    const marked: Array<{ line: number; last: number; start: number; end: number }> = []
    // Hits wait until their line ends: a marker later in the line voids them.
    let line = 1
    let lineStart = 0
    let nextNewline = raw.indexOf(10)
    let lineMarked = false
    // Lines after the last marked one that still belong to its record.
    let joining = 0
    const literals: string[] = []
    const required: number[] = []
    const endLine = () => {
      if (lineMarked || joining > 0) {
        const end = nextNewline === -1 ? raw.length : nextNewline
        const record = marked[marked.length - 1]
        if (joining > 0 && record !== undefined) {
          record.last = line
          record.end = end
          joining--
        } else marked.push({ line, last: line, start: lineStart, end })
        if (lineMarked && rewrite.linesAfter) {
          const after = rewrite.linesAfter(raw.toString('utf8', Math.max(lineStart, end - lineEndBytes), end))
          joining = Math.max(joining, after)
        }
      } else {
        for (const key of literals) {
          const first = firstLine.get(key)
          if (first === undefined) firstLine.set(key, line)
          else if (first !== line) repeated.add(key)
        }
        for (const id of required) seenWords.add(id)
        if (lineHasWord) wordLines.add(line)
      }
      literals.length = 0
      required.length = 0
      lineMarked = false
      lineHasWord = false
    }
    const hit = (bytes: Buffer, id: number, start: number, keys: string[], words: number[], firstPass: boolean) => {
      const trigger = this.triggers[id] as Trigger
      if (trigger.kind === 'required') {
        words.push(id)
        return
      }
      const { key } = this.entries[trigger.entry] as PatternEntry
      // In the first pass a key already found on two lines needs no more checks.
      if (firstPass && repeated.has(key)) return
      if (bytes.subarray(start, start + trigger.exact.length).equals(trigger.exact) && !isFrameAt(bytes, start))
        keys.push(key)
    }
    const nextLine = () => {
      line++
      lineStart = nextNewline + 1
      nextNewline = raw.indexOf(10, lineStart)
    }
    this.automaton.scan(raw, (id, start) => {
      while (nextNewline !== -1 && nextNewline < start) {
        endLine()
        nextLine()
      }
      if (id >= this.lineWordBase) lineHasWord = true
      else if (id >= this.markerBase) lineMarked = true
      else hit(raw, id, start, literals, required, true)
      return undefined
    })
    endLine()
    // Lines without a hit after the last one may still belong to its record.
    while (joining > 0 && nextNewline !== -1) {
      nextLine()
      endLine()
    }
    // Wrapped records are matched joined (scanExcerpt), which the line-by-line pass cannot do.
    const wrapped = mayHoldWrappedRecords(raw)
    const lines = () => [...wordLines].sort((a, b) => a - b)
    if (marked.length === 0) {
      const excerpt = excerptOf(raw)
      if (wrapped) return { excerpt, matches: this.scanExcerpt(excerpt), wordLines: lines() }
      return { excerpt, matches: this.scanExcerptLines(raw, firstLine, repeated, seenWords), wordLines: lines() }
    }

    const parts: Buffer[] = []
    let copied = 0
    let linesChanged = false
    for (const m of marked) {
      const rewritten = Buffer.from(rewrite(raw.toString('utf8', m.start, m.end)), 'utf8')
      parts.push(raw.subarray(copied, m.start), rewritten)
      copied = m.end
      const keys: string[] = []
      const keyLines: number[] = []
      const words: number[] = []
      // A hit's line within the record: hits come in the order of their ends, and no word spans lines.
      let hitLine = m.line
      let newline = rewritten.indexOf(10)
      this.automaton.scan(rewritten, (id, start) => {
        while (newline !== -1 && newline < start) {
          hitLine++
          newline = rewritten.indexOf(10, newline + 1)
        }
        if (id >= this.lineWordBase) wordLines.add(hitLine)
        if (id >= this.markerBase) return undefined
        const found = keys.length
        hit(rewritten, id, start, keys, words, false)
        if (keys.length > found) keyLines.push(hitLine)
        return undefined
      })
      // Every newline of the rewritten record counts a line: its lines must be those of the record.
      linesChanged ||= countNewlines(rewritten) !== m.last - m.line
      keys.forEach((key, k) => {
        const at = keyLines[k] as number
        const first = firstLine.get(key)
        if (first !== undefined && first !== at) repeated.add(key)
        if ((first ?? Number.POSITIVE_INFINITY) > at) firstLine.set(key, at)
      })
      for (const id of words) seenWords.add(id)
    }
    parts.push(raw.subarray(copied))
    const excerpt = excerptOf(Buffer.concat(parts))
    // A rewrite that made lines leaves the line numbers of the words unknown.
    const noted = linesChanged ? undefined : lines()
    // A rule word over several lines, or a rewrite that made lines: match the whole again.
    if (this.multiLineWords || linesChanged || wrapped)
      return { excerpt, matches: this.scanExcerpt(excerpt), wordLines: noted }
    return {
      excerpt,
      matches: this.scanExcerptLines(excerpt.bytes, firstLine, repeated, seenWords, excerpt),
      wordLines: noted,
    }
  }

  private scanExcerptLines(
    bytes: Buffer,
    firstLine: Map<string, number>,
    repeated: Set<string>,
    seenWords: Set<number>,
    excerpt: Excerpt = excerptOf(bytes),
  ): Map<string, PatternMatch> {
    return this.withRegexMatches(excerpt, excerpt, seenWords, withRepeats(locate(bytes, firstLine, 'line'), repeated))
  }

  /**
   * Runs the regular expressions whose required literals all occurred, on the text of
   * `scanned` (the excerpt, or its copy with wrapped records joined); lines from `excerpt`.
   */
  private withRegexMatches(
    excerpt: Excerpt,
    scanned: Excerpt,
    seenWords: Set<number>,
    found: Map<string, PatternMatch>,
  ): Map<string, PatternMatch> {
    const candidates = [...this.alwaysRun]
    for (const { entry, alternatives } of this.prefilters) {
      if (alternatives.some((ids) => ids.every((id) => seenWords.has(id)))) candidates.push(entry)
    }
    for (const index of candidates) {
      const { key, pattern } = this.entries[index] as PatternEntry
      if (pattern.kind !== 'regex') continue
      const match = firstMatchOutsideFrames(pattern.regex, scanned.text)
      if (!match) continue
      const known = found.get(key)
      const line = lineInText(excerpt.text, match.index)
      line.repeated = nextMatchOutsideFrames(pattern.regex, scanned.text, match.index) !== null
      if (known === undefined || line.line < known.line) found.set(key, line)
    }
    return found
  }
}

/**
 * The line (with context) of each key's first match, given as a line number or as a byte
 * offset, with one pass over the newlines for all keys.
 */
function locate(bytes: Buffer, targets: Map<string, number>, unit: 'line' | 'offset'): Map<string, PatternMatch> {
  const result = new Map<string, PatternMatch>()
  const lines = new ByteLines(bytes)
  let line = 1
  let lineStart = 0
  for (const [key, target] of [...targets].sort((a, b) => a[1] - b[1])) {
    for (let nl = bytes.indexOf(10, lineStart); nl !== -1; nl = bytes.indexOf(10, lineStart)) {
      if (unit === 'line' ? line >= target : nl >= target) break
      line++
      lineStart = nl + 1
    }
    result.set(key, withContext(lines, line, lineStart))
  }
  return result
}

const globalForms = new WeakMap<RegExp, RegExp>()

/** The first match that is not in a stack frame: usually the first match, tried once. */
function firstMatchOutsideFrames(regex: RegExp, text: string): RegExpExecArray | null {
  const first = regex.exec(text)
  if (!first || !isFrameAtText(text, first.index)) return first
  return nextMatchOutsideFrames(regex, text, first.index)
}

/** The first match outside a frame on a line after the one at `index`. */
function nextMatchOutsideFrames(regex: RegExp, text: string, index: number): RegExpExecArray | null {
  let global = globalForms.get(regex)
  if (!global) {
    global = new RegExp(regex.source, `${regex.flags}g`)
    globalForms.set(regex, global)
  }
  for (let from = text.indexOf('\n', index); from !== -1; from = text.indexOf('\n', from + 1)) {
    global.lastIndex = from
    const next = global.exec(text)
    if (!next) return null
    if (!isFrameAtText(text, next.index)) return next
    from = next.index
  }
  return null
}

function countNewlines(bytes: Buffer): number {
  let count = 0
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, nl + 1)) count++
  return count
}

/** Two byte offsets on different lines. */
function onOtherLines(bytes: Buffer, a: number, b: number): boolean {
  const newline = bytes.indexOf(10, Math.min(a, b))
  return newline !== -1 && newline < Math.max(a, b)
}

/** The matches, with `repeated` set for the keys that matched another line. */
function withRepeats(found: Map<string, PatternMatch>, repeated: ReadonlySet<string>): Map<string, PatternMatch> {
  for (const key of repeated) {
    const match = found.get(key)
    if (match) match.repeated = true
  }
  return found
}

/** The line of a character offset of the text (for a regular expression's match). */
function lineInText(text: string, offset: number): PatternMatch {
  let line = 1
  let lineStart = 0
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    line++
    lineStart = nl + 1
  }
  return withContext(new TextLines(text), line, lineStart)
}

/** Lines around a position, over bytes or over text alike. */
interface Lines {
  /** Start of the line before the one starting at `start`, or -1 at the first line. */
  previous(start: number): number
  /** Start of the line after the one starting at `start`, or -1 at the last line. */
  next(start: number): number
  read(start: number): string
}

class ByteLines implements Lines {
  constructor(private readonly bytes: Buffer) {}
  previous(start: number): number {
    return start === 0 ? -1 : start < 2 ? 0 : this.bytes.lastIndexOf(10, start - 2) + 1
  }
  next(start: number): number {
    const nl = this.bytes.indexOf(10, start)
    return nl === -1 ? -1 : nl + 1
  }
  read(start: number): string {
    const nl = this.bytes.indexOf(10, start)
    const end = Math.min(nl === -1 ? this.bytes.length : nl, start + maxLineBytes)
    return this.bytes.toString('utf8', start, end).slice(0, maxLineChars)
  }
}

class TextLines implements Lines {
  constructor(private readonly text: string) {}
  previous(start: number): number {
    return start === 0 ? -1 : start < 2 ? 0 : this.text.lastIndexOf('\n', start - 2) + 1
  }
  next(start: number): number {
    const nl = this.text.indexOf('\n', start)
    return nl === -1 ? -1 : nl + 1
  }
  read(start: number): string {
    return this.text.slice(start, start + maxLineChars).split('\n', 1)[0] as string
  }
}

function withContext(lines: Lines, line: number, lineStart: number): PatternMatch {
  const before: ContextLine[] = []
  let start = lineStart
  for (let n = line - 1; n >= 1 && before.length < contextLines; n--) {
    start = lines.previous(start)
    before.unshift({ number: n, text: lines.read(start) })
  }
  const text = lines.read(lineStart)
  const after: ContextLine[] = []
  start = lineStart
  for (let n = line + 1; after.length < contextLines; n++) {
    start = lines.next(start)
    if (start === -1) break
    after.push({ number: n, text: lines.read(start) })
  }
  return {
    line,
    text,
    context: [...before, { number: line, text }, ...after],
    repeated: false,
    causeDepth: causeDepthOf(lines, lineStart, text),
  }
}

const causedBy = /(?:^|\s)Caused by: /
const suppressed = /(?:^|\s)Suppressed: /
/** A trace longer than this is not walked further up (its depth is then a lower bound). */
const maxTraceLines = 400

/** The number of `Caused by:` lines from the trace's message down to this one (0 if it is none). */
function causeDepthOf(lines: Lines, lineStart: number, text: string): number {
  if (!causedBy.test(text)) return 0
  let depth = 1
  let start = lineStart
  for (let n = 0; n < maxTraceLines; n++) {
    start = lines.previous(start)
    if (start === -1) break
    const above = lines.read(start)
    if (causedBy.test(above)) depth++
    else if (!isFrameSegment(above) && !suppressed.test(above)) break
  }
  return depth
}
