import { exceptionsOf } from '../rules/exception-facts.js'
import type { ExceptionRecord } from '../text/exceptions/records.js'
import { type Excerpt, excerptOf } from '../text/excerpt.js'
import type { LineRewriter, PatternMatch } from '../text/pattern-index.js'
import { type GcSummary, summarizeGc } from './gc-log.js'
import { collectTailsForRedaction, type LogFileSummary } from './log-collector.js'
import { redactionOf } from './redact.js'
import type { RedactionOptions } from './redaction-options.js'

/**
 * Redacts and matches raw tails in one pass: the lines holding a secret marker are
 * rewritten with the redaction's rewriter, the rules match the result (PatternIndex.scanRewriting),
 * and the lines the exception reader will read are noted (`wordLines`, when known).
 */
export type LogMatcher = (
  raw: Buffer,
  markers: readonly string[],
  rewrite: LineRewriter,
) => { excerpt: Excerpt; matches: Map<string, PatternMatch>; wordLines?: number[] | undefined }

/**
 * What the worker needs from an instance's logs, redacted: what the scanner and the
 * exception reader found (the report shows the matched lines with their context), and the
 * excerpt's bytes once, kept as the event's evidence bundle (at most 512 KiB, D15).
 */
export interface LogAnalysis {
  files: LogFileSummary[]
  /** Whether any log text was read. */
  read: boolean
  gc: GcSummary
  /** The first matching line of each catalogue key, with context. */
  matches: Map<string, PatternMatch>
  /** The exceptions the reader found in the redacted excerpt (bounded: text/exceptions/records.ts). */
  exceptions: ExceptionRecord[]
  /**
   * The redacted excerpt as the rules scanned it, for the stored evidence bundle (docs/design.md,
   * "Stored evidence"): a view of a buffer that holds little else and nothing another part of
   * the thread uses (ownedExcerpt), so that a thread hands it over instead of copying it. Null
   * when nothing was read. A thread's answer carries it as a Uint8Array.
   */
  excerpt: Uint8Array | null
}

/**
 * Reads the tails, redacts them (D15) while matching the catalogue, then parses GC events
 * and reads the exceptions of the redacted excerpt: nothing unredacted leaves this function.
 */
export function analyzeLogs(
  files: readonly string[],
  roots: readonly string[],
  match: LogMatcher,
  options: RedactionOptions = {},
): LogAnalysis {
  const { prepare, markers, rewrite } = redactionOf(options)
  const tails = collectTailsForRedaction(files, roots, undefined, prepare)
  if (tails.bytes.length === 0) {
    return {
      files: tails.files,
      read: false,
      gc: summarizeGc(excerptOf(tails.bytes)),
      matches: new Map(),
      exceptions: [],
      excerpt: null,
    }
  }
  const { excerpt, matches, wordLines } = match(tails.bytes, markers, rewrite)
  return {
    files: tails.files,
    read: true,
    gc: summarizeGc(excerpt),
    matches,
    exceptions: exceptionsOf(excerpt, undefined, wordLines),
    excerpt: ownedExcerpt(excerpt.bytes),
  }
}

/**
 * The excerpt for the bundle, in a buffer of its own that the thread can hand over whole
 * (a transfer): the buffer the tail was read into, when the excerpt is most of it (the usual
 * case: one file, nothing rewritten), else a copy. Never Node's shared pool of small buffers
 * (Buffer.poolSize): handing it over would take it from every other buffer it holds.
 */
export function ownedExcerpt(bytes: Buffer): Uint8Array {
  const whole = bytes.buffer.byteLength
  return whole > Buffer.poolSize && bytes.length * 2 >= whole ? bytes : new Uint8Array(bytes)
}

/**
 * An analysis stopped at its bound, its thread terminated and replaced (docs/design.md, "A
 * bound on every analysis"): `cpu` when it used more CPU time than the bound, `wall` when
 * it did not finish within the wall-clock backstop (a thread that waits, not computes).
 */
export class AnalysisTimeoutError extends Error {
  constructor(
    readonly bound: 'cpu' | 'wall',
    readonly limitMs: number,
    /** The CPU time the analysis had used, when the thread's CPU clock could be read. */
    readonly cpuMs: number | null = null,
  ) {
    super(
      bound === 'cpu'
        ? `the log analysis used more than ${limitMs} ms of CPU time`
        : `the log analysis did not finish within ${limitMs} ms${cpuMs === null ? '' : ` (${Math.round(cpuMs)} ms of CPU time)`}`,
    )
    this.name = 'AnalysisTimeoutError'
  }
}

/** The analysis of files that were not read because the analysis ran past its bound. */
export function timedOutAnalysis(files: readonly string[], error: AnalysisTimeoutError): LogAnalysis {
  return {
    files: files.map((file) => ({ file, lines: 0, bytes: 0, truncated: false, error: `not read: ${error.message}` })),
    read: false,
    gc: summarizeGc(excerptOf(Buffer.alloc(0))),
    matches: new Map(),
    exceptions: [],
    excerpt: null,
  }
}
