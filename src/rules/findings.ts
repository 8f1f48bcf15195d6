import type { Event, RuleResult } from 'json-rules-engine'
import type { ExceptionRecord } from '../text/exceptions/records.js'
import type { PatternMatch } from '../text/pattern-index.js'
import { type CorroboratingFact, corroboratingFacts } from './corroboration-results.js'
import type { FindingParams } from './engine-rules.js'
import type { ExceptionSignature } from './exception-conditions.js'
import type { ExceptionSummary } from './exception-facts.js'
import { contradicts, exceptionLine } from './exception-findings.js'
import type { ExceptionTaxonomy } from './exception-taxonomy.js'
import { byRank, type Ranked } from './ranking.js'
import type { CatalogueRule, LogMatches } from './types.js'

// From the engine's results of a run to its findings, ranked (docs/design.md, "Ranking"):
// what each finding earned, the line that shows it and what its rank reads.

export interface Finding {
  rule: CatalogueRule
  /**
   * What the evidence earned (docs/design.md, "Confidence is earned"): a confirmed cause
   * whose signature nothing corroborated is a probable one. The rule's own classification
   * is the most it can claim.
   */
  classification: CatalogueRule['classification']
  confidence: CatalogueRule['confidence']
  /** Whether a confirmation was corroborated; null for a rule whose classification is its own. */
  corroborated: boolean | null
  /** The corroborating conditions that held, for a corroborated finding; empty otherwise. */
  corroboratedBy: CorroboratingFact[]
  /**
   * The first log line that matched one of the rule's patterns, or else the first line of
   * an exception that supports it (its class or its verdict), when it matched on logs.
   */
  logMatch: PatternMatch | null
}

/** What the engine holds for each of its engine rules, by the engine rule's name. */
export interface EngineRuleEntry {
  rule: CatalogueRule
  /** The log patterns it tests. */
  patterns: string[]
  /** The exception classes and meanings it tests. */
  signature: ExceptionSignature
}

/** What a run read of its evidence: the scanner's matches and the exception reader's records. */
export interface RunReadings {
  log: LogMatches
  records: readonly ExceptionRecord[]
  summary: ExceptionSummary
  taxonomy: ExceptionTaxonomy
}

/** How deep in a `Caused by:` chain the rule's patterns matched: the deepest of its lines. */
function causeDepth(patterns: readonly string[], log: LogMatches): number {
  let depth = 0
  for (const pattern of patterns) depth = Math.max(depth, log.get(pattern)?.causeDepth ?? 0)
  return depth
}

/** The earliest line that matched one of the rule's patterns. */
function firstLine(patterns: readonly string[], log: LogMatches): PatternMatch | null {
  let first: PatternMatch | null = null
  for (const pattern of patterns) {
    const match = log.get(pattern)
    if (match && (!first || match.line < first.line)) first = match
  }
  return first
}

/** The findings of a run's successful results, ranked (the primary first), each with its result. */
export function rankedFindings(
  results: readonly RuleResult[],
  entryOf: (name: string) => EngineRuleEntry,
  { log, records, summary, taxonomy }: RunReadings,
): Array<{ ranked: Ranked; result: RuleResult }> {
  const entries = results.map((result) => {
    const { rule, patterns, signature } = entryOf(result.name)
    const { classification, confidence, corroborated } = (result.event as Event).params as FindingParams
    const matchedLine = firstLine(patterns, log)
    const finding: Finding = {
      rule,
      classification,
      confidence,
      corroborated,
      corroboratedBy: corroboratingFacts(result, corroborated),
      logMatch: matchedLine ?? exceptionLine(signature, records, summary, taxonomy),
    }
    const contradicted = matchedLine !== null && contradicts(signature, matchedLine.line, records, summary)
    const ranked: Ranked = {
      finding,
      priority: result.priority ?? 1,
      depth: causeDepth(patterns, log),
      contradicted,
    }
    return { ranked, result }
  })
  return entries.sort((a, b) => byRank(a.ranked, b.ranked))
}
