import type { PatternMatch } from '../rules/pattern-index.js'
import type { Excerpt } from '../text/excerpt.js'
import { type GcSummary, mayHoldGcEvents, summarizeGc } from './gc-log.js'
import { collectLogs, type LogFileSummary } from './log-collector.js'

/** Matches a redacted excerpt against the rule catalogue. */
export type LogMatcher = (excerpt: Excerpt) => Map<string, PatternMatch>

/**
 * What the worker needs from an instance's logs: small, so that it can cross from an
 * analysis thread cheaply. The excerpt itself stays where it was read; the report shows
 * the matched lines with their context.
 */
export interface LogAnalysis {
  files: LogFileSummary[]
  /** Whether any log text was read. */
  read: boolean
  gc: GcSummary
  /** The first matching line of each catalogue key, with context. */
  matches: Map<string, PatternMatch>
}

/** Reads and redacts the tails (D15), then parses GC events and matches the catalogue. */
export function analyzeLogs(files: readonly string[], roots: readonly string[], match: LogMatcher): LogAnalysis {
  const logs = collectLogs(files, roots)
  const read = logs.bytes.length > 0
  return {
    files: logs.files,
    read,
    gc: summarizeGc(mayHoldGcEvents(logs.bytes) ? logs.text : ''),
    matches: read ? match(logs) : new Map(),
  }
}
