import type { LogFileSummary } from '../evidence/log-collector.js'

/** Where a line of the log excerpt came from: its file, and its line there. */
export interface LineLocation {
  file: string
  /**
   * "1520", or "3 from the end" when the file's lines before its tail were not counted; for a
   * line that stands for folded frames, the lines of the file it replaced ("1203-2222").
   */
  label: string
}

interface Span {
  file: string
  start: number
  lines: number
  firstLine: number | null
  folds: NonNullable<LogFileSummary['folds']>
}

/**
 * The excerpt the rules scan is the tails of an instance's files joined in inventory order
 * (evidence/log-collector.ts); this maps an excerpt line number back to its file and line,
 * counting the lines each fold of repeated frames replaced (text/frame-folding.ts).
 */
export function lineLocator(files: readonly LogFileSummary[]): (excerptLine: number) => LineLocation | null {
  const spans: Span[] = []
  let start = 1
  for (const summary of files) {
    if (summary.error || summary.lines === 0) continue
    const { file, lines, firstLine = null, folds = [] } = summary
    spans.push({ file, start, lines, firstLine, folds })
    start += summary.lines
  }
  return (excerptLine) => {
    const span = spans.find((s) => excerptLine >= s.start && excerptLine < s.start + s.lines)
    if (!span) return null
    const offset = excerptLine - span.start
    // The line's index in the file's tail as read, before folding.
    let first = offset
    let fold = 0
    for (const f of span.folds) {
      if (f.line < offset) first += f.lines - 1
      else if (f.line === offset) fold = f.lines
    }
    const last = fold > 0 ? first + fold - 1 : first
    const read = span.lines + span.folds.reduce((sum, f) => sum + f.lines - 1, 0)
    const label = (index: number) => (span.firstLine === null ? read - 1 - index : span.firstLine + index)
    const range = last === first ? String(label(first)) : `${label(first)}-${label(last)}`
    return { file: span.file, label: span.firstLine === null ? `${range} from the end` : range }
  }
}
