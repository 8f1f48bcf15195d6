import type { EvidenceSummary } from '../evidence/collect.js'
import type { Finding } from '../rules/findings.js'
import { seedPrincipal } from '../rules/seed.js'
import { isBuiltin } from '../rules/types.js'
import { corroborationWords } from './corroboration-words.js'

// A finding as a report shows it: whose rule, what it claims, and why it is confirmed or
// only probable (docs/design.md, "Confidence is earned").

export interface FindingView {
  id: string | number
  branch: string
  ruleName: string
  category: string
  classification: string
  confidence: string | null
  assessment: string
  /** A seed rule is a custom rule the service registered itself (builtin-rules/seed-rulepack.json). */
  origin: 'built-in' | 'seed' | 'custom'
  /** Why a cause is confirmed or only probable (docs/design.md, "Confidence is earned"); null when the rule says. */
  basis: string | null
  /** The facts that corroborated a confirmed cause, in words; empty when none did. */
  corroboratedBy: string[]
}

const confidenceBasis = {
  corroborated:
    'its signature and a corroborating fact: the signature on more than one line, a failing probe, a metric, or a container event',
  uncorroborated:
    'its signature alone: one line, and no repeat, probe, metric or container event corroborated it, so it is a probable cause, not a confirmed one',
} as const

function basis(finding: Finding, corroboratedBy: string[]): string | null {
  if (finding.corroborated === null) return null
  if (!finding.corroborated) return confidenceBasis.uncorroborated
  return corroboratedBy.length > 0
    ? `its signature, corroborated by: ${corroboratedBy.join('; ')}`
    : confidenceBasis.corroborated
}

const origin = (rule: Finding['rule']): FindingView['origin'] =>
  isBuiltin(rule) ? 'built-in' : rule.createdBy === seedPrincipal ? 'seed' : 'custom'

export function findingView(finding: Finding, probe: EvidenceSummary['probe']): FindingView {
  const { rule } = finding
  // A result of an engine from before the facts were named has none.
  const corroboratedBy = (finding.corroboratedBy ?? []).map((fact) => corroborationWords(fact, probe))
  return {
    id: rule.id,
    branch: rule.branch,
    ruleName: rule.ruleName,
    category: rule.category,
    classification: finding.classification,
    confidence: finding.confidence,
    assessment: rule.assessment,
    origin: origin(rule),
    basis: basis(finding, corroboratedBy),
    corroboratedBy,
  }
}
