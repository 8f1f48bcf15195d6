import type { RuleResult } from 'json-rules-engine'
import {
  type ConditionOutcome,
  conditionOutcome,
  type EvaluatedNode,
  heldPositively,
  type ResultNode,
  testsFindings,
} from './condition-outcomes.js'
import type { FindingParams } from './engine-rules.js'
import { type Ranked, type RankingReason, rankingReason } from './ranking.js'
import type { CatalogueRule, Classification, Confidence } from './types.js'

// Why a diagnosis is what it is (docs/design.md, "Why this branch"): each rule that matched
// or almost matched, with its conditions as the engine evaluated them, and why the primary
// finding outranked each other one. Built from json-rules-engine's results of the run.

export type { ConditionOutcome }

/** One rule of the catalogue in the explanation of a run. */
export interface RuleExplanation {
  /** Its catalogue id: `builtin-TD-02`, or a custom rule's number. */
  rule: string | number
  branch: string
  ruleName: string
  outcome: 'matched' | 'almost_matched'
  /** What the finding earned (matched), or what the rule would claim (almost matched). */
  classification: Classification
  confidence: Confidence
  /** Whether a confirmation was corroborated; null for a rule that states its own classification. */
  corroborated: boolean | null
  /** The priority of the engine rule shown. */
  priority: number
  /**
   * The engine rule's conditions as evaluated: for a matched rule the form that matched (a
   * confirmed cause's signature with its corroboration, or without it); for an almost matched
   * one the rule's own conditions, without the corroboration the engine adds.
   */
  conditions: ConditionOutcome
  /** Almost matched: which member of its own `all` failed (0-based); null for a matched rule. */
  failedMember: number | null
}

/** Why the primary finding ranks before another finding. */
export interface RankingExplanation extends RankingReason {
  rule: string | number
  branch: string
}

export interface DiagnosisExplanation {
  /** The shape's version: 1. */
  version: 1
  /** The matched rules in rank order (the primary first), then the almost matched ones in catalogue order. */
  rules: RuleExplanation[]
  /** One entry per other finding, in rank order. */
  ranking: RankingExplanation[]
  /** What the bounds left out. */
  omitted: { matched: number; almostMatched: number; ranking: number }
}

/** The bounds of a stored explanation: a catalogue holds up to DIAG_MAX_CUSTOM_RULES rules. */
export const explanationBounds = { matched: 100, almostMatched: 50, ranking: 100 }

const paramsOf = (result: RuleResult) => (result.event as unknown as { params: FindingParams }).params

/**
 * An engine result's whole condition tree. json-rules-engine marks every condition it
 * evaluated but the top one, whose result is the rule's.
 */
const topConditions = (result: RuleResult): ResultNode => ({
  ...(result.conditions as unknown as ResultNode),
  result: (result as unknown as { result: boolean }).result,
})

/** The rule's own conditions in an engine result: engine-rules.ts wraps a confirmed cause's in `all: [own, corroboration]`. */
function ownConditions(result: RuleResult): ResultNode {
  const top = topConditions(result)
  return paramsOf(result).corroborated === null ? top : (top.all?.[0] ?? top)
}

/**
 * Almost matched: the rule did not match; its own conditions are an `all` of two members or
 * more; exactly one of them failed; the others held, at least one of them by finding
 * something (not only a `not` that held); and none tests `findings` (the fallbacks TD-07 and
 * TD-08 fail only because another rule matched). Returns the failed member's index.
 */
export function almostMatchedMember(own: EvaluatedNode): number | null {
  const members = own.all
  if (!members || members.length < 2 || own.result !== false || testsFindings(own)) return null
  const failed = members.flatMap((member, i) => (member.result === false ? [i] : []))
  const held = members.filter((member) => member.result === true)
  if (failed.length !== 1 || held.length !== members.length - 1 || !held.some(heldPositively)) return null
  return failed[0] ?? null
}

export interface RunResults {
  /** The findings ranked (primary first), each with the engine result that made it. */
  ranked: ReadonlyArray<{ ranked: Ranked; result: RuleResult }>
  /** The engine rules that did not match. */
  failures: readonly RuleResult[]
  ruleOf(engineName: string): CatalogueRule | undefined
  /** The catalogue in its order: built-ins as loaded, then custom rules as registered. */
  catalogue: readonly CatalogueRule[]
}

function matchedRule(entry: RunResults['ranked'][number]): RuleExplanation {
  const { finding, priority } = entry.ranked
  const { rule } = finding
  return {
    rule: rule.id,
    branch: rule.branch,
    ruleName: rule.ruleName,
    outcome: 'matched',
    classification: finding.classification,
    confidence: finding.confidence,
    corroborated: finding.corroborated,
    priority,
    conditions: conditionOutcome(topConditions(entry.result)),
    failedMember: null,
  }
}

function almostMatched(run: RunResults): RuleExplanation[] {
  const matched = new Set(run.ranked.map((entry) => entry.ranked.finding.rule))
  // A confirmed cause has two engine rules with the same own conditions: the first is enough.
  const failedBy = new Map<CatalogueRule, RuleResult>()
  for (const result of run.failures) {
    const rule = run.ruleOf(result.name)
    if (rule && !matched.has(rule) && !failedBy.has(rule)) failedBy.set(rule, result)
  }
  const almost: RuleExplanation[] = []
  for (const rule of run.catalogue) {
    const result = failedBy.get(rule)
    if (!result) continue
    // Decided on the engine's own nodes: only a rule that almost matched is converted.
    const raw = ownConditions(result)
    const failedMember = almostMatchedMember(raw)
    if (failedMember === null) continue
    const own = conditionOutcome(raw)
    almost.push({
      rule: rule.id,
      branch: rule.branch,
      ruleName: rule.ruleName,
      outcome: 'almost_matched',
      classification: rule.classification,
      confidence: rule.confidence,
      corroborated: null,
      priority: result.priority ?? 1,
      conditions: own,
      failedMember,
    })
  }
  return almost
}

/** The explanation of one run, bounded (`explanationBounds`). */
export function explainRun(run: RunResults): DiagnosisExplanation {
  const matched = run.ranked.map(matchedRule)
  const almost = almostMatched(run)
  const [primary, ...others] = run.ranked
  const ranking = primary
    ? others.map(({ ranked }) => ({
        rule: ranked.finding.rule.id,
        branch: ranked.finding.rule.branch,
        ...rankingReason(primary.ranked, ranked),
      }))
    : []
  const { matched: maxMatched, almostMatched: maxAlmost, ranking: maxRanking } = explanationBounds
  return {
    version: 1,
    rules: [...matched.slice(0, maxMatched), ...almost.slice(0, maxAlmost)],
    ranking: ranking.slice(0, maxRanking),
    omitted: {
      matched: Math.max(0, matched.length - maxMatched),
      almostMatched: Math.max(0, almost.length - maxAlmost),
      ranking: Math.max(0, ranking.length - maxRanking),
    },
  }
}
