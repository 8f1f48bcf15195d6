import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { redact } from '../../src/evidence/redact.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { DiagnosisEngine } from '../../src/rules/diagnosis-engine.js'
import { offlineCustomRule, readRulepack } from '../../src/rules/rule-input.js'
import { seedRulepackFile } from '../../src/rules/seed.js'
import { corpusDir } from './parts.js'

/** One verbatim log excerpt from a public source, and what a diagnosis of it must say. */
export interface Excerpt {
  id: string
  source: string
  product: string
  /** The client library whose wording the lines show, where that matters more than the product. */
  library?: string | null
  version: string | null
  format: string
  licence: string
  expected: { branch: string; category: string }
  split: 'tuning' | 'held-out'
  log: string
}

export function loadCorpus(dir = join(corpusDir, 'excerpts')): Excerpt[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Excerpt[])
}

export interface Verdict {
  excerpt: Excerpt
  branch: string
  category: string
  classification: string
}

/** Diagnoses each excerpt with the service's engine: the built-ins and the seed, the log redacted as the service does. */
export async function diagnoseCorpus(excerpts: readonly Excerpt[]): Promise<Verdict[]> {
  const { rules, versions } = loadBuiltinRules()
  const createdAt = new Date(0).toISOString()
  const seed = readRulepack(seedRulepackFile).map((body, i) => offlineCustomRule(body, i + 1, 'seed', createdAt))
  const engine = new DiagnosisEngine(rules, versions, seed)
  const verdicts: Verdict[] = []
  for (const excerpt of excerpts) {
    const alert = { alertname: 'CorpusExcerpt', instance: excerpt.product, severity: 'critical' }
    const diagnosis = await engine.diagnose(withLogText(emptyEvidence(alert), redact(excerpt.log)))
    const { rule, classification } = diagnosis.primary
    verdicts.push({ excerpt, branch: rule.branch, category: rule.category, classification })
  }
  return verdicts
}

export interface Scores {
  excerpts: number
  top1: number
  top1Hits: number
  category: number
  categoryHits: number
  /** How many diagnoses said "confirmed" (a corroborated signature). */
  confirmed: number
  wrongConfirmed: string[]
  perBranch: Record<string, { precision: number | null; recall: number | null; support: number }>
  confusions: Array<{ expected: string; got: string; count: number }>
}

const ratio = (n: number, d: number) => (d === 0 ? null : n / d)

export function score(verdicts: readonly Verdict[]): Scores {
  const branches = new Set(verdicts.flatMap((v) => [v.excerpt.expected.branch, v.branch]))
  const perBranch: Scores['perBranch'] = {}
  for (const branch of [...branches].sort()) {
    const predicted = verdicts.filter((v) => v.branch === branch)
    const actual = verdicts.filter((v) => v.excerpt.expected.branch === branch)
    const hits = actual.filter((v) => v.branch === branch).length
    perBranch[branch] = {
      precision: ratio(hits, predicted.length),
      recall: ratio(hits, actual.length),
      support: actual.length,
    }
  }
  const pairs = new Map<string, number>()
  for (const v of verdicts) {
    if (v.branch === v.excerpt.expected.branch) continue
    const key = `${v.excerpt.expected.branch} -> ${v.branch}`
    pairs.set(key, (pairs.get(key) ?? 0) + 1)
  }
  const top1Hits = verdicts.filter((v) => v.branch === v.excerpt.expected.branch).length
  const categoryHits = verdicts.filter((v) => v.category === v.excerpt.expected.category).length
  return {
    excerpts: verdicts.length,
    top1: ratio(top1Hits, verdicts.length) ?? 0,
    top1Hits,
    category: ratio(categoryHits, verdicts.length) ?? 0,
    categoryHits,
    confirmed: verdicts.filter((v) => v.classification === 'confirmed_cause').length,
    // The word an SRE acts on: "confirmed" for a cause that is not the one.
    wrongConfirmed: verdicts
      .filter((v) => v.classification === 'confirmed_cause' && v.branch !== v.excerpt.expected.branch)
      .map((v) => `${v.excerpt.id}: ${v.branch} instead of ${v.excerpt.expected.branch}`),
    perBranch,
    confusions: [...pairs]
      .map(([key, count]) => {
        const [expected = '', got = ''] = key.split(' -> ')
        return { expected, got, count }
      })
      .sort((a, b) => b.count - a.count || a.expected.localeCompare(b.expected)),
  }
}

const pct = (x: number | null) => (x === null ? '   -' : `${(100 * x).toFixed(0).padStart(3)}%`)

/** The full report of the part rules are tuned on: per branch, confusions, every wrong "confirmed". */
export function formatScores(name: string, s: Scores): string {
  const lines = [
    `${name}: ${s.excerpts} excerpts, top-1 ${pct(s.top1)}, category ${pct(s.category)}, stated "confirmed" ${s.confirmed}, wrong "confirmed" ${s.wrongConfirmed.length}`,
    `  ${'branch'.padEnd(8)} precision  recall  support`,
    ...Object.entries(s.perBranch).map(
      ([branch, b]) =>
        `  ${branch.padEnd(8)} ${pct(b.precision).padStart(9)}  ${pct(b.recall).padStart(6)}  ${String(b.support).padStart(7)}`,
    ),
  ]
  if (s.confusions.length > 0) {
    lines.push('  confusions (expected -> diagnosed):')
    for (const c of s.confusions) lines.push(`    ${c.expected} -> ${c.got}: ${c.count}`)
  }
  for (const w of s.wrongConfirmed) lines.push(`  WRONG CONFIRMED ${w}`)
  return lines.join('\n')
}

/**
 * A held-out part's report: counts only. No excerpt, no branch, no confusion pair, so that
 * reading it cannot steer a rule change towards the excerpts it measures.
 */
export function formatCounts(name: string, s: Scores): string {
  if (s.excerpts === 0) return `${name}: no excerpts`
  return `${name}: ${s.excerpts} excerpts, top-1 ${pct(s.top1)} (${s.top1Hits} of ${s.excerpts}), category ${pct(s.category)} (${s.categoryHits} of ${s.excerpts}), stated "confirmed" ${s.confirmed}, wrong "confirmed" ${s.wrongConfirmed.length}`
}
