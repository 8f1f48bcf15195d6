import { isFrameSegment } from './stack-frames.js'

// A StackOverflowError's trace holds the 1,024 frames the JVM records, a cycle of one to a
// few frames repeated: more lines than the 500-line window, all after the exception's line,
// which the window then cuts off. The tail is folded before it is cut: frame lines that
// repeat the cycle right above them are replaced by one line that says how many went
// (docs/design.md, "Deep traces are folded"). Only frame lines (stack-frames.ts) that are
// byte for byte copies of lines kept above them go: folding removes no text that is not kept.

/** The longest cycle of frames looked for: a recursion through a few methods, a proxy or a serializer. */
export const maxCycle = 12
/**
 * Fewer repeated lines than this stay as they are. It also keeps the fold line shorter
 * than what it replaces: 10 frames take at least 9 bytes each beyond their indentation.
 */
export const minFolded = 10

/** Where the tail was folded: the fold line's index among the tail's lines, and how many file lines it stands for. */
export interface Fold {
  line: number
  lines: number
}

export interface FoldedTail {
  /** The kept lines with their fold lines, without a final newline: a part of the buffer folded. */
  bytes: Buffer
  lines: number
  /** Offset in the buffer of the first kept line: the lines before it are counted in the file. */
  from: number
  /** Whether lines before `from` were left out because `maxLines` was reached. */
  more: boolean
  /** In the order of the file. */
  folds: Fold[]
  /** Line comparisons made: the folding's work, in proportion to the lines kept and folded. */
  compared: number
}

const newline = 0x0a
const carriageReturn = 0x0d

/** The line that stands for `count` folded frame lines, with the indentation of the frame above it. */
export function foldLine(indentation: string, count: number, cycle: number): string {
  const n = count.toLocaleString('en-US')
  if (cycle === 1) return `${indentation}... ${n} identical frames folded`
  return `${indentation}... ${n} frames folded (${cycle}-frame cycle above, ${(count / cycle).toLocaleString('en-US')} more times)`
}

/** A run of lines folded away, counted from the end of the tail: `first` is its lowest line. */
interface FoldedRun {
  first: number
  count: number
  cycle: number
}

/**
 * The last `maxLines` lines of `buffer[start, end)` with repeated frames folded, walking up
 * from the end: the work is in proportion to the lines kept and folded, not to the buffer.
 * Folding rewrites `buffer` in place (the caller's read buffer): no copy of the tail is made.
 * At each line the longest run that repeats a cycle of up to `maxCycle` frame lines above it
 * is folded (the cycle and any partial repeat above the fold are kept), when at least
 * `minFolded` lines would go; otherwise the line is kept and the walk moves one line up.
 */
export function lastLinesFolded(buffer: Buffer, start: number, end: number, maxLines: number): FoldedTail {
  const none = { lines: 0, folds: [], compared: 0 }
  if (end <= start) return { ...none, bytes: buffer.subarray(start, start), from: start, more: false }
  if (maxLines <= 0) return { ...none, bytes: buffer.subarray(end, end), from: end, more: true }
  const lines = new LinesUpward(buffer, start, end)
  // From the bottom up: a kept line is its index (0 is the last line), a fold its run.
  const kept: Array<number | FoldedRun> = []
  let at = 0
  while (kept.length < maxLines && lines.has(at)) {
    const fold = longestFold(lines, at)
    if (!fold) {
      kept.push(at++)
      continue
    }
    kept.push({ first: at, count: fold.folded, cycle: fold.cycle })
    // The lines above the fold are kept as they are: they are what the fold line refers to.
    const above = at + fold.run + fold.cycle
    for (at += fold.folded; at < above && kept.length < maxLines; at++) kept.push(at)
  }
  const more = lines.has(at)
  const top = kept.at(-1) as number | FoldedRun
  const from = lines.start(typeof top === 'number' ? top : top.first + top.count - 1)
  const { compared } = lines
  if (kept.every((entry) => typeof entry === 'number')) {
    return { bytes: buffer.subarray(from, end), lines: kept.length, from, more, folds: [], compared }
  }
  // The kept lines as read, each folded run replaced by its fold line, moved up in place: a
  // fold line is shorter than its run, so nothing is overwritten before it is moved, and the
  // lines above the first fold (usually most of the tail) stay where they are.
  const folds: Fold[] = []
  let written = -1 // the end of what is in place
  let copyFrom = from // the start of the kept lines not yet moved
  for (let i = kept.length - 1; i >= 0; i--) {
    const entry = kept[i] as number | FoldedRun
    if (typeof entry === 'number') continue
    const above = entry.first + entry.count // the kept line right above the fold, the end of its cycle
    const runStart = lines.start(above - 1)
    const runEnd = lines.end(entry.first)
    // Read from the line above before it moves.
    const text = foldLine(lines.indentation(above), entry.count, entry.cycle) + lines.lineEnd(above)
    if (text.length > runEnd - runStart) throw new Error('a fold line longer than the lines it replaces')
    if (written === -1) written = runStart
    else {
      buffer.copyWithin(written, copyFrom, runStart)
      written += runStart - copyFrom
    }
    written += buffer.write(text, written, 'latin1')
    copyFrom = runEnd
    folds.push({ line: kept.length - 1 - i, lines: entry.count })
  }
  buffer.copyWithin(written, copyFrom, end)
  return { bytes: buffer.subarray(from, written + end - copyFrom), lines: kept.length, from, more, folds, compared }
}

/**
 * The fold that starts at line `at` (counted from the end) and takes the most lines: the
 * lines from `at` up that each equal the line `cycle` above them, in whole cycles.
 */
function longestFold(lines: LinesUpward, at: number): { cycle: number; run: number; folded: number } | null {
  if (!lines.mayBeFrame(at)) return null
  let best: { cycle: number; run: number; folded: number } | null = null
  // How many lines each cycle's run spans (the run and the cycle above it). Where a cycle d
  // spans at least c lines, a multiple c of d repeats only inside that span, so its run ends
  // at least d lines before d's and it never folds more: it is not tried.
  const spans: number[] = []
  for (let cycle = 1; cycle <= maxCycle; cycle++) {
    if (spans.some((span, d) => cycle % d === 0 && span >= cycle)) continue
    let run = 0
    while (lines.repeats(at + run, cycle)) run++
    spans[cycle] = run + cycle
    const folded = run - (run % cycle)
    if (folded >= minFolded && folded > (best?.folded ?? 0)) best = { cycle, run, folded }
  }
  return best
}

/**
 * The lines of `buffer[start, end)` counted from the end (0 is the last line), found with
 * native newline searches as they are asked for.
 */
class LinesUpward {
  private readonly starts: number[] = []
  /** Per line: 0 not known yet, 1 a frame, 2 not a frame. */
  private readonly frames: number[] = []
  compared = 0

  constructor(
    private readonly buffer: Buffer,
    private readonly floor: number,
    private readonly last: number,
  ) {}

  has(line: number): boolean {
    while (this.starts.length <= line) {
      const below = this.starts.length === 0 ? this.last + 1 : (this.starts.at(-1) as number)
      if (below <= this.floor) return false
      // The line ends at the newline before the line below it (or at the tail's end).
      const lineEnd = below - 1
      const nl = lineEnd > this.floor ? this.buffer.lastIndexOf(newline, lineEnd - 1) : -1
      this.starts.push(Math.max(nl + 1, this.floor))
      this.frames.push(0)
    }
    return true
  }

  start(line: number): number {
    return this.starts[line] as number
  }

  /** Where the line ends: its newline, or the end of the tail. */
  end(line: number): number {
    return line === 0 ? this.last : this.start(line - 1) - 1
  }

  /**
   * Whether the line may be a frame, from its last byte: a frame ends with `)`, or `]`
   * after logback's jar, or a JSON string's `"` and `,`. Most log lines are ruled out here,
   * before any comparison.
   */
  mayBeFrame(line: number): boolean {
    if (this.frames[line] !== 0) return this.frames[line] === 1
    let at = this.end(line) - 1
    const floor = this.start(line)
    while (at > floor && isBlank(this.buffer[at] as number)) at--
    const last = this.buffer[at]
    if (last === 0x29 || last === 0x5d || last === 0x22 || last === 0x2c) return true
    this.frames[line] = 2
    return false
  }

  /** Whether line `line` is a frame and the same bytes as the line `cycle` above it. */
  repeats(line: number, cycle: number): boolean {
    if (!this.has(line + cycle) || !this.mayBeFrame(line)) return false
    this.compared++
    const a = this.start(line)
    const b = this.start(line + cycle)
    const length = this.end(line) - a
    if (length !== this.end(line + cycle) - b) return false
    if (this.buffer.compare(this.buffer, b, b + length, a, a + length) !== 0) return false
    if (this.frames[line] === 0) {
      this.frames[line] = isFrameSegment(this.buffer.toString('utf8', a, a + length)) ? 1 : 2
    }
    // The same bytes: the line above is a frame if this one is, and is asked next in a run.
    this.frames[line + cycle] = this.frames[line] as number
    return this.frames[line] === 1
  }

  /** The leading blanks of a line, which the fold line below it repeats. */
  indentation(line: number): string {
    const start = this.start(line)
    const lineEnd = this.end(line)
    let end = start
    while (end < lineEnd && (this.buffer[end] === 0x20 || this.buffer[end] === 0x09)) end++
    return this.buffer.toString('latin1', start, end)
  }

  /** `\r` when the line ends with one (CRLF logs), so that the fold line ends the same way. */
  lineEnd(line: number): string {
    const lineEnd = this.end(line)
    return lineEnd > this.start(line) && this.buffer[lineEnd - 1] === carriageReturn ? '\r' : ''
  }
}

const isBlank = (byte: number) => byte === 0x20 || byte === 0x09 || byte === carriageReturn
