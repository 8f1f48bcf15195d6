import { excerptOf } from '../../text/excerpt.js'
import type { PatternMatch } from '../../text/pattern-index.js'
import type { Evidence, LogMatches } from '../types.js'
import type { DecodedBundle } from './evidence-bundle.js'

/** A match found in an excerpt whose first `lines` the bound dropped, numbered as in the excerpt the diagnosis read. */
const shifted = (match: PatternMatch, lines: number): PatternMatch =>
  lines === 0
    ? match
    : {
        ...match,
        line: match.line + lines,
        context: match.context.map((context) => ({ ...context, number: context.number + lines })),
      }

/**
 * The evidence a replay gives the engines from a stored bundle (docs/design.md, "Stored
 * evidence"): the stored facts and exception records as the diagnosis had them, and the
 * scanner's matches as stored, to which `scan` adds what the excerpt gives for patterns the
 * diagnosis did not have (a candidate's). A pattern the diagnosis had and found nothing
 * for finds nothing in the same excerpt; in a truncated one, a new pattern only sees the
 * lines kept.
 */
export function replayEvidence(
  bundle: DecodedBundle,
  scan: (excerpt: ReturnType<typeof excerptOf>) => LogMatches,
): Evidence {
  const { header, excerpt } = bundle
  if (header.log.kind === 'text') return { ...header.facts, log: { text: excerpt ? excerpt.toString('utf8') : '' } }
  const matches = new Map<string, PatternMatch>()
  if (excerpt) {
    const lines = header.excerpt?.droppedLines ?? 0
    for (const [pattern, match] of scan(excerptOf(excerpt))) matches.set(pattern, shifted(match, lines))
  }
  for (const [pattern, match] of header.log.matches) matches.set(pattern, match)
  return { ...header.facts, log: { matches, exceptions: header.log.exceptions } }
}
