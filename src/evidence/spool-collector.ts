import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createAjv, loadSchema } from '../ajv.js'
import { allowedPath } from './allowed-path.js'

export interface SpoolRecord {
  timestamp: string
  container?: string
  instance?: string
  exitCode?: number | null
  oomKilled?: boolean
  [field: string]: unknown
}

export interface SpoolEvidence {
  records: SpoolRecord[]
  files: number
  invalidLines: number
  error?: string
}

const validate = createAjv().compile<SpoolRecord>(loadSchema('event-record-v1.schema.json'))

/** D16: records from 30 minutes before to 10 minutes after the alert started. */
export const spoolWindow = { beforeMs: 30 * 60_000, afterMs: 10 * 60_000 }
const maxBytesPerFile = 1024 * 1024
const maxFiles = 16

function readTail(path: string): string {
  const fd = openSync(path, constants.O_RDONLY)
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, maxBytesPerFile)
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, size - length)
    const text = buffer.subarray(0, read).toString('utf8')
    return size > length ? text.slice(text.indexOf('\n') + 1) : text
  } finally {
    closeSync(fd)
  }
}

/**
 * Container events for one instance from the spool (D16): the newest `*.jsonl` files
 * (bounded in number and bytes), one event-record-v1 object a line, selected by the
 * inventory's container name or the alert's instance and by the window around startsAt.
 * An invalid line is skipped and counted, never fatal.
 */
export function collectSpool(
  dir: string,
  roots: readonly string[],
  select: { container?: string; instance: string; startsAt: string },
): SpoolEvidence {
  const allowed = allowedPath(dir, roots)
  if ('refused' in allowed) return { records: [], files: 0, invalidLines: 0, error: allowed.refused }
  let names: string[]
  try {
    names = readdirSync(allowed.path).filter((name) => name.endsWith('.jsonl'))
  } catch (error) {
    return {
      records: [],
      files: 0,
      invalidLines: 0,
      error: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    }
  }
  const start = Date.parse(select.startsAt)
  const from = start - spoolWindow.beforeMs
  const to = start + spoolWindow.afterMs
  const files = names
    .map((name) => join(allowed.path, name))
    .filter((path) => 'path' in allowedPath(path, roots))
    .map((path) => ({ path, mtime: statSync(path).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime)
    .slice(0, maxFiles)
  const records: SpoolRecord[] = []
  let invalidLines = 0
  for (const { path } of files) {
    for (const line of readTail(path).split('\n')) {
      if (line.trim() === '') continue
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        invalidLines++
        continue
      }
      if (!validate(record)) {
        invalidLines++
        continue
      }
      const mine =
        (select.container !== undefined && record.container === select.container) || record.instance === select.instance
      const at = Date.parse(record.timestamp)
      if (mine && at >= from && at <= to) records.push(record)
    }
  }
  records.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
  return { records, files: files.length, invalidLines }
}
