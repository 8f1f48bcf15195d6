import { promisify } from 'node:util'
import { brotliDecompress, brotliDecompressSync, constants, createBrotliCompress } from 'node:zlib'
import type { ExceptionRecord } from '../../text/exceptions/records.js'
import type { PatternMatch } from '../../text/pattern-index.js'
import type { Evidence } from '../types.js'

// The evidence bundle of a diagnosed event (docs/design.md, "Stored evidence"): the engine's
// inputs exactly as the diagnosis had them (the facts, what the scanner found, the exception
// records) and the redacted excerpt the scanner read, so that a replay can run other rules
// on what the diagnosis saw. One brotli stream: a JSON line, then the excerpt's bytes.

/** The bound on a stored bundle, compressed. */
export const maxBundleBytes = 512 * 1024

/** What may be dropped from a bundle over the bound, in this order (bundle-bounds.ts). */
export type Dropped = 'excerpt_head' | 'excerpt' | 'match_context' | 'spool_records' | 'match_text'

export interface BundleHeader {
  format: 1
  /** The engine's facts besides the log, as rules/facts.ts gives them. */
  facts: Omit<Evidence, 'log'>
  /**
   * The log as the engine had it: what the scanner found (pattern, first match) and the
   * exception records the reader gave (`scanned`, the worker's analysis), or the excerpt's
   * text itself, which the engine scanned and read (`text`).
   */
  log: { kind: 'scanned'; matches: Array<[string, PatternMatch]>; exceptions: ExceptionRecord[] } | { kind: 'text' }
  /** The evidence summary's values behind the facts (files read, GC, metrics, probe, spool), as the report had them. */
  values: Record<string, unknown>
  /** The excerpt after this header: its bytes, and what the bound cut from its start. */
  excerpt: { bytes: number; droppedBytes: number; droppedLines: number } | null
  /** What the bound dropped, in the order it dropped it; empty for a whole bundle. */
  dropped: Dropped[]
}

/** A bundle ready to store. */
export interface EncodedBundle {
  encoding: 'br'
  format: 1
  bytes: Buffer
  /** Its size before compression. */
  rawBytes: number
  truncated: boolean
}

export interface DecodedBundle {
  header: BundleHeader
  /** The redacted excerpt, or what the bound left of it; null when none was read or kept. */
  excerpt: Buffer | null
}

const decompress = promisify(brotliDecompress)
/** Quality 0: a fifth less CPU than quality 1 for a tenth more bytes on real logs, at one bundle per event (docs/design.md, "Stored evidence"). */
const quality = 0

/** The bundle's bytes before compression, in their order: its header line, then the excerpt. */
export function rawBundle(header: BundleHeader, excerpt: Buffer | null): Buffer[] {
  const line = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8')
  return excerpt && excerpt.length > 0 ? [line, excerpt] : [line]
}

/** The size of a bundle before compression. */
export const rawLength = (parts: readonly Buffer[]) => parts.reduce((total, part) => total + part.length, 0)

/**
 * Compressed off the event loop (libuv's thread pool), the parts written one after the other
 * to one brotli stream: the 512 KiB excerpt is not copied into a joined buffer first.
 */
export function compressBundle(parts: readonly Buffer[]): Promise<Buffer> {
  const size = rawLength(parts)
  return new Promise((resolve, reject) => {
    const stream = createBrotliCompress({
      chunkSize: 256 * 1024,
      params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: size },
    })
    const out: Buffer[] = []
    stream.on('data', (chunk: Buffer) => out.push(chunk))
    stream.on('end', () => resolve(Buffer.concat(out)))
    stream.on('error', reject)
    for (const part of parts) stream.write(part)
    stream.end()
  })
}

function parse(raw: Buffer): DecodedBundle {
  const end = raw.indexOf(0x0a)
  if (end < 0) throw new Error('an evidence bundle without its header line')
  const header = JSON.parse(raw.subarray(0, end).toString('utf8')) as BundleHeader
  if (header.format !== 1) throw new Error(`an evidence bundle of format ${String(header.format)}`)
  const excerpt = raw.subarray(end + 1)
  return { header, excerpt: header.excerpt ? excerpt : null }
}

export const decodeBundle = async (bytes: Buffer): Promise<DecodedBundle> => parse(await decompress(bytes))

/** On a replay thread, where blocking is the point. */
export const decodeBundleSync = (bytes: Buffer): DecodedBundle => parse(brotliDecompressSync(bytes))
