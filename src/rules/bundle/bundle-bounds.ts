import type { Evidence } from '../types.js'
import {
  type BundleHeader,
  compressBundle,
  type Dropped,
  type EncodedBundle,
  maxBundleBytes,
  rawBundle,
  rawLength,
} from './evidence-bundle.js'

// A bundle within its bound (docs/design.md, "Stored evidence"). Logs compress ten times or
// more, so a bundle rarely reaches 512 KiB; an excerpt that does not compress (base64 dumps,
// binary garbage) does. What goes first is what a replay of the catalogue's own rules does not
// need: the oldest lines of the excerpt (the facts the engine saw stay whole), then the
// excerpt, the context lines of the stored matches, the spool records but the newest 20, and
// last the matched lines' texts (their line numbers, repetition and depth stay: the ranking's inputs).

export interface BundleInput {
  evidence: Evidence
  /** The redacted excerpt the scanner read; null when no log was read. */
  excerpt: Buffer | null
  /** The evidence summary's values (files read, GC, metrics, probe, spool). */
  values: Record<string, unknown>
}

const newlines = (bytes: Buffer) => {
  let count = 0
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) count++
  return count
}

function headerOf(input: BundleInput, excerpt: Buffer | null): BundleHeader {
  const { log, ...facts } = input.evidence
  return {
    format: 1,
    facts,
    log:
      'matches' in log ? { kind: 'scanned', matches: [...log.matches], exceptions: log.exceptions } : { kind: 'text' },
    values: input.values,
    excerpt: excerpt ? { bytes: excerpt.length, droppedBytes: 0, droppedLines: 0 } : null,
    dropped: [],
  }
}

/** The later steps, each applied to the header when the bundle is still over its bound. */
const laterSteps: Array<[Dropped, (header: BundleHeader) => void]> = [
  [
    'match_context',
    (header) => {
      if (header.log.kind === 'scanned')
        header.log.matches = header.log.matches.map(([p, m]) => [p, { ...m, context: [] }])
    },
  ],
  [
    'spool_records',
    (header) => {
      const spool = header.values.spool as { records?: unknown[] } | null | undefined
      if (spool?.records) header.values = { ...header.values, spool: { ...spool, records: spool.records.slice(-20) } }
    },
  ],
  [
    'match_text',
    (header) => {
      if (header.log.kind === 'scanned')
        header.log.matches = header.log.matches.map(([p, m]) => [p, { ...m, text: '' }])
    },
  ],
]

/** The bundle of one diagnosis, compressed, within `limit` bytes (marked truncated when something was dropped). */
export async function encodeBundle(input: BundleInput, limit = maxBundleBytes): Promise<EncodedBundle> {
  const whole = 'text' in input.evidence.log ? Buffer.from(input.evidence.log.text) : input.excerpt
  const excerpt = whole && whole.length > 0 ? whole : null
  const header = headerOf(input, excerpt)
  let kept = excerpt
  let raw = rawBundle(header, kept)
  let bytes = await compressBundle(raw)
  const rawBytes = rawLength(raw)
  // The oldest lines first, cut in proportion to what compression achieved, a few times at most.
  for (let attempt = 0; attempt < 4 && excerpt && kept && bytes.length > limit; attempt++) {
    const target = Math.floor((limit * 0.95 * rawLength(raw)) / bytes.length) - (rawLength(raw) - kept.length)
    const from = target <= 0 ? excerpt.length : excerpt.indexOf(0x0a, Math.max(0, excerpt.length - target))
    kept = from < 0 || from + 1 >= excerpt.length ? null : excerpt.subarray(from + 1)
    const droppedBytes = excerpt.length - (kept?.length ?? 0)
    header.excerpt = kept
      ? { bytes: kept.length, droppedBytes, droppedLines: newlines(excerpt.subarray(0, droppedBytes)) }
      : null
    header.dropped = [kept ? 'excerpt_head' : 'excerpt']
    raw = rawBundle(header, kept)
    bytes = await compressBundle(raw)
  }
  if (bytes.length > limit && kept) {
    kept = null
    header.excerpt = null
    header.dropped = ['excerpt']
    raw = rawBundle(header, kept)
    bytes = await compressBundle(raw)
  }
  for (const [dropped, apply] of laterSteps) {
    if (bytes.length <= limit) break
    apply(header)
    header.dropped.push(dropped)
    bytes = await compressBundle(rawBundle(header, kept))
  }
  return { encoding: 'br', format: 1, bytes, rawBytes, truncated: header.dropped.length > 0 }
}
