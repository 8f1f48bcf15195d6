import { randomUUID } from 'node:crypto'
import { type Almanac, Engine, type Event, type RuleResult } from 'json-rules-engine'
import { type LineRewriter, PatternIndex, type PatternMatch, type PatternSource } from '../text/pattern-index.js'
import { corroboratingEvidence, type Family } from './builtin-loader.js'
import { type CorroboratingFact, corroboratingFacts } from './corroboration-results.js'
import {
  corroborationCondition,
  engineRules,
  type FindingParams,
  logFact,
  matches,
  matchesOperator,
  matchesRepeatedly,
  repeatedOperator,
  rulePatterns,
} from './engine-rules.js'
import { engineFacts } from './facts.js'
import {
  type BuiltinRule,
  type CatalogueRule,
  type CustomRule,
  type Evidence,
  isBuiltin,
  type LogMatches,
} from './types.js'

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
  /** The first log line that matched one of the rule's patterns, when it matched on logs. */
  logMatch: PatternMatch | null
}

export interface Diagnosis {
  primary: Finding
  /** Every finding, ranked (docs/design.md, "Ranking"): the primary first. */
  matches: Finding[]
  /** Every rule evaluated and whether it matched, in catalogue order. */
  trace: Array<{ id: string | number; branch: string; matched: boolean }>
  catalogue: {
    builtinVersions: Record<Family, string>
    customRules: number
    lastCustomRuleId: number | null
    /** The live engine that decided: its identity and how many rules it held. */
    engine: { instance: string; rules: number }
  }
}

/**
 * The engine's own bound on the text it scans (the collectors already keep excerpts to
 * 512 KiB): a 512 KiB UTF-8 excerpt has at most this many characters.
 */
const maxExcerptChars = 512 * 1024

/**
 * Condition paths are `$.<name>` only (schemas/builtin-rules.schema.json, and `$.alertname`
 * of scoped custom rules): a property read, instead of the default that evaluates a
 * JSONPath expression for every condition of every event.
 */
function pathResolver(value: unknown, path: string): unknown {
  const key = path.slice(2)
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined
}

/** Findings so far in this run: the fallbacks TD-07 and TD-08 run last and need none. */
const findingsSoFar = (almanac: Almanac) =>
  // getEvents is json-rules-engine's own record of a run; its typings omit it.
  (almanac as unknown as { getEvents(outcome: 'success'): unknown[] }).getEvents('success').length

/**
 * One live json-rules-engine instance (docs/design.md, "Rules"): built once from the
 * built-in rule files and the stored custom rules, then a registered rule is added to it
 * with `addRule`. The engine decides every outcome: the fallbacks TD-07 and TD-08 are rules
 * at the lowest priority that match when nothing else did, and findings rank by their
 * rules' priorities. Log patterns enter through the `log` fact, which the shared scanner
 * (PatternIndex) computes, once per run, from the excerpt, unless the evidence brings what
 * the scanner already found while the excerpt was read and redacted.
 *
 * json-rules-engine keeps the state of a run on the instance, so runs are serialised.
 */
export class DiagnosisEngine {
  /** Tells this instance from others in a report's provenance. */
  readonly instance = randomUUID()
  private readonly engine: Engine
  /** Catalogue order: built-ins as loaded, then custom rules as registered. */
  private readonly rules: CatalogueRule[] = []
  private readonly byName = new Map<string, CatalogueRule>()
  private readonly patterns = new Map<string, string[]>()
  private readonly sources: PatternSource[] = []
  private readonly scanned = new Set<string>()
  private plainIndex: PatternIndex | undefined
  private readonly markedIndexes = new WeakMap<readonly string[], { patterns: number; index: PatternIndex }>()
  private custom = 0
  private lastCustomRuleId: number | null = null
  private running: Promise<unknown> = Promise.resolve()

  constructor(
    builtins: readonly BuiltinRule[],
    readonly builtinVersions: Record<Family, string>,
    custom: readonly CustomRule[] = [],
  ) {
    this.engine = new Engine([], { allowUndefinedFacts: true, pathResolver })
    this.engine.addOperator<unknown, unknown>(matchesOperator, matches)
    this.engine.addOperator<unknown, unknown>(repeatedOperator, matchesRepeatedly)
    this.engine.setCondition(corroborationCondition, corroboratingEvidence() as Parameters<Engine['setCondition']>[1])
    this.engine.addFact<Promise<LogMatches>>(logFact, async (_params, almanac) =>
      this.scan((await almanac.factValue<string | undefined>('logText')) ?? ''),
    )
    this.engine.addFact('findings', (_params, almanac) => findingsSoFar(almanac), { cache: false })
    for (const rule of builtins) this.add(rule)
    for (const rule of custom) this.addCustomRule(rule)
  }

  /** How many rules the engine instance itself holds. */
  get ruleCount(): number {
    return (this.engine as unknown as { rules: unknown[] }).rules.length
  }

  /** Hot-adds a registered rule: the next run uses it. */
  addCustomRule(rule: CustomRule): void {
    this.add(rule)
    this.custom++
    this.lastCustomRuleId = rule.id
  }

  private add(rule: CatalogueRule): void {
    const forms = engineRules(rule).map((form) => ({ form, name: form.name as string }))
    for (const { name } of forms) if (this.byName.has(name)) throw new Error(`rule ${name} is already in the engine`)
    const patterns = rulePatterns(rule)
    for (const { form, name } of forms) {
      this.engine.addRule(form)
      this.byName.set(name, rule)
      this.patterns.set(name, patterns)
    }
    this.rules.push(rule)
    // Each pattern once in the scanner, however many rules test it.
    const added = patterns.filter((source) => !this.scanned.has(source))
    for (const source of added) {
      this.scanned.add(source)
      this.sources.push({ key: source, source })
    }
    // The scanner's index covers every pattern: the next scan builds it again.
    if (added.length > 0) this.plainIndex = undefined
  }

  /** What the shared scanner finds in a (redacted) excerpt: the first line of each pattern. */
  scan(text: string): LogMatches {
    if (!text) return new Map()
    this.plainIndex ??= PatternIndex.fromSources(this.sources)
    return this.plainIndex.scan(text.length > maxExcerptChars ? text.slice(-maxExcerptChars) : text)
  }

  /**
   * The scan of raw log bytes whose lines holding one of `markers` need `rewrite` first
   * (redaction), in one pass: PatternIndex.scanRewriting. Returns the rewritten excerpt.
   */
  scanRewriting(raw: Buffer, markers: readonly string[], rewrite: LineRewriter) {
    let marked = this.markedIndexes.get(markers)
    // Built again when a rule was added since.
    if (!marked || marked.patterns !== this.sources.length) {
      marked = { patterns: this.sources.length, index: PatternIndex.fromSources(this.sources, markers) }
      this.markedIndexes.set(markers, marked)
    }
    return marked.index.scanRewriting(raw, rewrite)
  }

  /** Every rule run on the evidence; the findings ranked by their rules' priorities. */
  diagnose(evidence: Evidence): Promise<Diagnosis> {
    const run = this.running.then(() => this.runOnce(evidence))
    this.running = run.catch(() => undefined)
    return run
  }

  private async runOnce(evidence: Evidence): Promise<Diagnosis> {
    const { results, almanac } = await this.engine.run(engineFacts(evidence))
    const log = await almanac.factValue<LogMatches>(logFact)
    const matched = new Set(results.map((result) => this.byName.get(result.name)))
    const ranked = results.map((result) => {
      const rule = this.byName.get(result.name) as CatalogueRule
      const { classification, confidence, corroborated } = (result.event as Event).params as FindingParams
      const finding: Finding = {
        rule,
        classification,
        confidence,
        corroborated,
        corroboratedBy: corroboratingFacts(result, corroborated),
        logMatch: this.firstLine(result.name, log),
      }
      return { finding, priority: result.priority ?? 1, depth: this.causeDepth(result.name, log) }
    })
    const matches = ranked.sort(byRank).map(({ finding }) => finding)
    const primary = matches[0]
    if (!primary) throw new Error('the rules reached no outcome: TD-07 and TD-08 must be in the catalogue')
    return {
      primary,
      matches,
      trace: this.rules.map((rule) => ({
        id: rule.id,
        branch: rule.branch,
        matched: matched.has(rule),
      })),
      catalogue: {
        builtinVersions: this.builtinVersions,
        customRules: this.custom,
        lastCustomRuleId: this.lastCustomRuleId,
        engine: { instance: this.instance, rules: this.ruleCount },
      },
    }
  }

  /** How deep in a `Caused by:` chain the rule's patterns matched: the deepest of its lines. */
  private causeDepth(name: string, log: LogMatches): number {
    let depth = 0
    for (const pattern of this.patterns.get(name) ?? []) depth = Math.max(depth, log.get(pattern)?.causeDepth ?? 0)
    return depth
  }

  /** The earliest line that matched one of the rule's patterns. */
  private firstLine(name: string, log: LogMatches): PatternMatch | null {
    let first: PatternMatch | null = null
    for (const pattern of this.patterns.get(name) ?? []) {
      const match = log.get(pattern)
      if (match && (!first || match.line < first.line)) first = match
    }
    return first
  }
}

const classificationRank = { confirmed_cause: 0, probable_cause: 1, undetermined: 2 } as const

/**
 * The ranking (docs/design.md, "Ranking"): what the evidence earned (confirmed, probable,
 * undetermined); within it the root cause before its wrappers (a finding matched deeper in
 * a `Caused by:` chain first); then the rules' priorities; then built-ins by branch and
 * custom rules by id. A total order, so the result does not depend on the order rules were
 * added or evaluated in.
 */
function byRank(
  a: { finding: Finding; priority: number; depth: number },
  b: { finding: Finding; priority: number; depth: number },
): number {
  const byEarned = classificationRank[a.finding.classification] - classificationRank[b.finding.classification]
  if (byEarned !== 0) return byEarned
  if (a.depth !== b.depth) return b.depth - a.depth
  if (a.priority !== b.priority) return b.priority - a.priority
  const ra = a.finding.rule
  const rb = b.finding.rule
  if (!isBuiltin(ra) && !isBuiltin(rb)) return ra.id - rb.id
  if (isBuiltin(ra) !== isBuiltin(rb)) return isBuiltin(ra) ? -1 : 1
  return ra.branch.localeCompare(rb.branch)
}
