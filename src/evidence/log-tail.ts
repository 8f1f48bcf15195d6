import { closeSync, readSync } from 'node:fs'
import { type Fold, lastLinesFolded } from '../text/frame-folding.js'
import { openRegularFile } from './regular-file.js'

export const logBounds = { maxLines: 500, maxBytes: 512 * 1024 }

export interface LogTail {
  /** The kept lines as read (UTF-8, not yet decoded), without a final newline. */
  bytes: Buffer
  lines: number
  /** True when the file held more than the bounds allowed. */
  truncated: boolean
  /**
   * The line number in the file of the first kept line, or null when the lines before the
   * tail were more than `countBytes` to count: the report then numbers lines from the end.
   */
  firstLine: number | null
  /**
   * The lines that stand for repeated stack frames folded out of the tail (text/frame-folding.ts):
   * each one's index among the kept lines and how many lines of the file it replaced.
   */
  folds: Fold[]
}

/** How much of a file before its tail is read to count its lines (docs/design.md, "Evidence"). */
export const countBytes = 8 * 1024 * 1024

/**
 * The tail of one log file within the D15 bounds, read-only: opened O_RDONLY (no writes,
 * no locks) and only if it is a regular file (openRegularFile), only the last `maxBytes`
 * read, a line cut by the start of the window dropped, repeated stack frames folded (so
 * that a deep trace keeps its exception's line), then at most `maxLines` lines kept. Works
 * on the bytes (native searches for newlines); decoding is the caller's, once.
 */
export function readLogTail(path: string, bounds = logBounds): LogTail {
  const { fd, size } = openRegularFile(path)
  try {
    const length = Math.min(size, bounds.maxBytes)
    const buffer = Buffer.allocUnsafe(length)
    let end = 0
    // A file truncated while we read simply yields fewer bytes.
    while (end < length) {
      const n = readSync(fd, buffer, end, length - end, size - length + end)
      if (n === 0) break
      end += n
    }
    let truncated = size > length
    const start = truncated ? buffer.subarray(0, end).indexOf(10) + 1 : 0
    if (end > start && buffer[end - 1] === 10) end--
    const { bytes, from, lines, more, folds } = lastLinesFolded(buffer, start, end, bounds.maxLines)
    truncated ||= more
    const skipped = size - length
    const firstLine =
      skipped > countBytes ? null : 1 + countNewlines(buffer, 0, from) + (skipped > 0 ? newlinesBefore(fd, skipped) : 0)
    return { bytes, lines, truncated, firstLine, folds }
  } finally {
    closeSync(fd)
  }
}

function countNewlines(buffer: Buffer, start: number, end: number): number {
  let count = 0
  for (let at = buffer.indexOf(10, start); at !== -1 && at < end; at = buffer.indexOf(10, at + 1)) count++
  return count
}

/** Newlines in the first `length` bytes of the file, read in 1 MiB chunks. */
function newlinesBefore(fd: number, length: number): number {
  const chunk = Buffer.allocUnsafe(Math.min(length, 1024 * 1024))
  let count = 0
  for (let position = 0; position < length; ) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, length - position), position)
    if (n === 0) break
    count += countNewlines(chunk, 0, n)
    position += n
  }
  return count
}
