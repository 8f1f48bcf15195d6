import type { ExceptionRecord } from '../text/exceptions/records.js'
import type { PatternMatch } from '../text/pattern-index.js'
import type { ExceptionSignature } from './exception-conditions.js'
import { counts, type ExceptionSummary } from './exception-facts.js'
import type { ExceptionTaxonomy } from './exception-taxonomy.js'

// What a finding takes from the exception records of its run (docs/design.md, "Ranking"):
// the line it shows when no pattern of its rule matched, and whether the reader
// contradicts it.

/**
 * The first record that counts whose verdict is one of the rule's meanings, or whose chain
 * holds one of its classes, as the line a report shows; null when there is none.
 */
export function exceptionLine(
  { classes, meanings }: ExceptionSignature,
  records: readonly ExceptionRecord[],
  summary: ExceptionSummary,
  taxonomy: ExceptionTaxonomy,
): PatternMatch | null {
  if (classes.length === 0 && meanings.length === 0) return null
  const record = records.find((record, i) => {
    if (!counts(record)) return false
    const verdict = summary.verdicts[i]
    if (verdict && meanings.includes(verdict.meaning)) return true
    return [record, ...record.causes].some(
      (t) => t.class !== null && classes.some((name) => taxonomy.isA(t.class as string, name)),
    )
  })
  if (!record) return null
  const line = { number: record.line, text: record.text }
  return { line: record.line, text: record.text, context: [line], repeated: false, causeDepth: 0 }
}

/**
 * The reader read the trace that holds `line` (or that `line` logged: the trace's owner) as
 * another failure than any of a rule's meanings: a rule without meanings is never
 * contradicted (the reader says nothing of it).
 */
export function contradicts(
  { meanings }: ExceptionSignature,
  line: number,
  records: readonly ExceptionRecord[],
  summary: ExceptionSummary,
): boolean {
  if (meanings.length === 0 || meanings.some((meaning) => summary.exceptionMeanings.includes(meaning))) return false
  return records.some(
    (record, i) =>
      counts(record) && (record.owner ?? record.line) <= line && line <= record.end && !!summary.verdicts[i],
  )
}
