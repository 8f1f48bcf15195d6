import { closeSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createAjv, loadSchema } from '../ajv.js'
import { toInstant } from '../instant.js'
import type { SpoolRecord } from '../schema-types/spool-record.js'
import { allowedPath } from './allowed-path.js'
import { openRegularFile, unreadableReason } from './regular-file.js'

export interface SpoolEvidence {
  records: SpoolRecord[]
  files: number
  invalidLines: number
  /** Spool entries that were not read, with the reason (not a regular file, unreadable). */
  skipped: Array<{ file: string; reason: string }>
  error?: string
}

const validate = createAjv().compile<SpoolRecord>(loadSchema('event-record-v1.schema.json'))

/** D16: records from 30 minutes before to 10 minutes after the alert started. */
export const spoolWindow = { beforeMs: 30 * 60_000, afterMs: 10 * 60_000 }
const maxBytesPerFile = 1024 * 1024
const maxFiles = 16

/** The last `maxBytesPerFile` of a spool file, whole lines only; regular files only. */
function readTail(path: string): string {
  const { fd, size } = openRegularFile(path)
  try {
    const length = Math.min(size, maxBytesPerFile)
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, size - length)
    const text = buffer.subarray(0, read).toString('utf8')
    return size > length ? text.slice(text.indexOf('\n') + 1) : text
  } finally {
    closeSync(fd)
  }
}

/** For ordering only: an entry whose date cannot be read sorts last, and its read says why. */
function statMtime(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
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
  if ('refused' in allowed) return { records: [], files: 0, invalidLines: 0, skipped: [], error: allowed.refused }
  let names: string[]
  try {
    names = readdirSync(allowed.path).filter((name) => name.endsWith('.jsonl'))
  } catch (error) {
    return {
      records: [],
      files: 0,
      invalidLines: 0,
      skipped: [],
      error: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    }
  }
  const start = toInstant(select.startsAt)
  const from = start - spoolWindow.beforeMs
  const to = start + spoolWindow.afterMs
  const skipped: SpoolEvidence['skipped'] = []
  const dated: Array<{ name: string; path: string; mtime: number }> = []
  for (const name of names) {
    const inside = allowedPath(join(allowed.path, name), roots)
    if ('refused' in inside) skipped.push({ file: name, reason: inside.refused })
    else dated.push({ name, path: inside.path, mtime: statMtime(inside.path) })
  }
  const newest = dated.sort((a, b) => b.mtime - a.mtime).slice(0, maxFiles)
  const records: Array<{ record: SpoolRecord; at: number }> = []
  let invalidLines = 0
  let files = 0
  for (const { name, path } of newest) {
    let text: string
    try {
      text = readTail(path)
    } catch (error) {
      skipped.push({ file: name, reason: unreadableReason(error) })
      continue
    }
    files++
    for (const line of text.split('\n')) {
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
      const at = toInstant(record.timestamp)
      if (mine && at >= from && at <= to) records.push({ record, at })
    }
  }
  records.sort((a, b) => a.at - b.at)
  return { records: records.map((r) => r.record), files, invalidLines, skipped }
}
