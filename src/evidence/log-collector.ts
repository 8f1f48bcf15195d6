import { type Excerpt, excerptOf } from '../text/excerpt.js'
import type { Fold } from '../text/frame-folding.js'
import { allowedPath } from './allowed-path.js'
import { logBounds, readLogTail } from './log-tail.js'
import { redactBytes, unblockPrivateKeys } from './redact.js'
import type { RedactionOptions } from './redaction-options.js'
import { unreadableReason } from './regular-file.js'

export interface LogFileSummary {
  file: string
  lines: number
  bytes: number
  truncated: boolean
  /** The line number in the file of the first line read, null when not counted (log-tail.ts). */
  firstLine?: number | null
  /**
   * Lines of the excerpt that stand for repeated stack frames folded out (text/frame-folding.ts):
   * the report numbers the lines after them as in the file. Absent when nothing was folded.
   */
  folds?: Fold[]
  error?: string
}

/** The redacted excerpt of all files, in inventory order, within the D15 bounds. */
export interface LogEvidence extends Excerpt {
  files: LogFileSummary[]
}

const newline = Buffer.from('\n')

/**
 * The tails of an instance's log files, at most 500 lines and 512 KiB in total (D15),
 * redacted before anything else sees them. A missing, unreadable or out-of-roots file is
 * reported, never fatal.
 */
export function collectLogs(
  files: readonly string[],
  roots: readonly string[],
  bounds = logBounds,
  options: RedactionOptions = {},
): LogEvidence {
  const tails = collectTails(files, roots, bounds, (bytes) => redactBytes(bytes, options).bytes)
  return Object.assign(excerptOf(tails.bytes), { files: tails.files })
}

/**
 * The same tails with private key blocks replaced (`prepare`: the redaction's pass over a
 * whole excerpt) but the other secrets still in place, for a caller that redacts line by
 * line within its own pass (the worker's analysis).
 */
export function collectTailsForRedaction(
  files: readonly string[],
  roots: readonly string[],
  bounds = logBounds,
  prepare: (bytes: Buffer) => Buffer = unblockPrivateKeys,
) {
  return collectTails(files, roots, bounds, prepare)
}

function collectTails(
  files: readonly string[],
  roots: readonly string[],
  bounds: typeof logBounds,
  prepare: (bytes: Buffer) => Buffer,
): { bytes: Buffer; files: LogFileSummary[] } {
  let lines = bounds.maxLines
  let bytes = bounds.maxBytes
  const parts: Buffer[] = []
  const summaries: LogFileSummary[] = []
  for (const file of files) {
    const allowed = allowedPath(file, roots)
    if ('refused' in allowed) {
      summaries.push({ file, lines: 0, bytes: 0, truncated: false, error: allowed.refused })
      continue
    }
    if (lines <= 0 || bytes <= 0) {
      summaries.push({ file, lines: 0, bytes: 0, truncated: true, error: 'not read: the evidence bounds were reached' })
      continue
    }
    try {
      const tail = readLogTail(allowed.path, { maxLines: lines, maxBytes: bytes })
      const kept = prepare(tail.bytes)
      if (kept.length > 0) parts.push(kept)
      lines -= tail.lines
      bytes -= kept.length + 1
      summaries.push({
        file,
        lines: tail.lines,
        bytes: kept.length,
        truncated: tail.truncated,
        firstLine: tail.firstLine,
        ...(tail.folds.length > 0 ? { folds: tail.folds } : {}),
      })
    } catch (error) {
      summaries.push({
        file,
        lines: 0,
        bytes: 0,
        truncated: false,
        error: unreadableReason(error),
      })
    }
  }
  const joined =
    parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts.flatMap((p, i) => (i ? [newline, p] : [p])))
  return { bytes: joined, files: summaries }
}
