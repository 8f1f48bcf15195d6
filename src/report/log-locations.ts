import type { LogFileSummary } from '../evidence/log-collector.js'

/** Where a line of the log excerpt came from: its file, and its line there. */
export interface LineLocation {
  file: string
  /** "1520", or "3 from the end" when the file's lines before its tail were not counted. */
  label: string
}

/**
 * The excerpt the rules scan is the tails of an instance's files joined in inventory order
 * (evidence/log-collector.ts); this maps an excerpt line number back to its file and line.
 */
export function lineLocator(files: readonly LogFileSummary[]): (excerptLine: number) => LineLocation | null {
  const spans: Array<{ file: string; start: number; lines: number; firstLine: number | null }> = []
  let start = 1
  for (const summary of files) {
    if (summary.error || summary.lines === 0) continue
    spans.push({ file: summary.file, start, lines: summary.lines, firstLine: summary.firstLine ?? null })
    start += summary.lines
  }
  return (excerptLine) => {
    const span = spans.find((s) => excerptLine >= s.start && excerptLine < s.start + s.lines)
    if (!span) return null
    const offset = excerptLine - span.start
    const label = span.firstLine === null ? `${span.lines - 1 - offset} from the end` : String(span.firstLine + offset)
    return { file: span.file, label }
  }
}
