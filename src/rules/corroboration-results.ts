import type { RuleResult } from 'json-rules-engine'
import type { ResultNode } from './condition-outcomes.js'

// Which facts corroborated a finding, as the engine decided it: json-rules-engine marks
// every condition it evaluated with its `result` (and a fact condition with `factResult`),
// so the report can name what held instead of what could have (docs/design.md,
// "Confidence is earned").

/** One corroborating condition that held in a run. */
export interface CorroboratingFact {
  fact: string
  /** `$.outcome`; absent for a fact read whole. */
  path?: string
  operator: string
  /** The condition's value; absent for the log's patterns. */
  value?: unknown
  /** What the fact was in this run, when it is a plain value (the log's matches are not). */
  actual?: string | number | boolean | null
}

const plain = (value: unknown): value is string | number | boolean | null =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value)

function heldLeaves(node: ResultNode): CorroboratingFact[] {
  if (node.result !== true) return []
  const children = node.all ?? node.any
  // A `not` that held says something was absent: nothing to name.
  if (children) return children.flatMap(heldLeaves)
  if (node.fact === undefined || node.operator === undefined) return []
  // A cause's line required beside a repeated banner (engine-rules.ts) is no fact of its own.
  if (node.fact === 'log' && node.operator === 'matches') return []
  const isLog = !plain(node.factResult) && node.fact === 'log'
  return [
    {
      fact: node.fact,
      ...(node.path ? { path: node.path } : {}),
      operator: node.operator,
      ...(isLog ? {} : { value: node.value }),
      ...(plain(node.factResult) ? { actual: node.factResult } : {}),
    },
  ]
}

/**
 * The corroborating conditions that held for a corroborated finding: engine-rules.ts builds
 * such a rule as `all: [the rule's conditions, any: [repeated, its own corroboratedBy,
 * the shared corroboration]]`, so they are the held leaves of the second part.
 */
export function corroboratingFacts(result: RuleResult, corroborated: boolean | null): CorroboratingFact[] {
  if (corroborated !== true) return []
  const top = result.conditions as ResultNode
  const corroboration = top.all?.[1]
  return corroboration ? heldLeaves(corroboration) : []
}
