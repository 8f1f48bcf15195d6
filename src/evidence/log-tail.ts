import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'

export const logBounds = { maxLines: 500, maxBytes: 512 * 1024 }

export interface LogTail {
  text: string
  lines: number
  bytes: number
  /** True when the file held more than the bounds allowed. */
  truncated: boolean
}

/**
 * The tail of one log file within the D15 bounds, read-only: opened O_RDONLY (no writes,
 * no locks), only the last `maxBytes` read, invalid UTF-8 replaced, a line cut by the
 * start of the window dropped, then at most `maxLines` lines kept.
 */
export function readLogTail(path: string, bounds = logBounds): LogTail {
  const fd = openSync(path, constants.O_RDONLY)
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, bounds.maxBytes)
    const buffer = Buffer.alloc(length)
    let read = 0
    // A file truncated while we read simply yields fewer bytes.
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, size - length + read)
      if (n === 0) break
      read += n
    }
    let text = buffer.subarray(0, read).toString('utf8')
    let truncated = size > length
    if (truncated) text = text.slice(text.indexOf('\n') + 1)
    const lines = text.split('\n')
    if (lines.at(-1) === '') lines.pop()
    if (lines.length > bounds.maxLines) {
      lines.splice(0, lines.length - bounds.maxLines)
      truncated = true
    }
    text = lines.join('\n')
    return { text, lines: lines.length, bytes: Buffer.byteLength(text), truncated }
  } finally {
    closeSync(fd)
  }
}
