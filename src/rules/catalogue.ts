import { Engine, type RuleProperties } from 'json-rules-engine'
import type { Family } from './builtin-loader.js'
import { PatternIndex, type PatternMatch, type PatternSource } from './pattern-index.js'
import { compareFindings } from './ranking.js'
import {
  type BuiltinRule,
  type CatalogueRule,
  type Condition,
  type CustomRule,
  type EvidenceFacts,
  isBuiltin,
} from './types.js'

export interface Finding {
  rule: CatalogueRule
  /** The first log line that matched the rule's pattern, when it matched on logs. */
  logMatch: PatternMatch | null
}

export interface Diagnosis {
  primary: Finding
  /** Every matching rule in D21 order, the primary first. */
  matches: Finding[]
  /** Every rule evaluated and whether it matched, in catalogue order. */
  trace: Array<{ id: string | number; branch: string; matched: boolean }>
  catalogue: { builtinVersions: Record<Family, string>; customRules: number; lastCustomRuleId: number | null }
}

export const customKey = (rule: CustomRule) => `custom-${rule.id}`

/**
 * The engine's own bound on the text it matches (the collectors already keep excerpts to
 * 512 KiB): a 512 KiB UTF-8 excerpt has at most this many characters.
 */
export const maxExcerptChars = 512 * 1024

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

/**
 * The log pattern a rule cannot match without: a `logPatterns contains <key>` condition
 * at the top of its `all`. The pattern index decides such a rule before the engine runs.
 */
function requiredLogPattern(conditions: Condition): string | null {
  if (!('all' in conditions)) return null
  for (const c of conditions.all) {
    if (
      'fact' in c &&
      c.fact === 'logPatterns' &&
      c.operator === 'contains' &&
      !c.path &&
      typeof c.value === 'string'
    ) {
      return c.value
    }
  }
  return null
}

/** A custom rule as a json-rules-engine rule: its pattern matched, and its alert if scoped (D19). */
function customConditions(rule: CustomRule): Condition {
  const all: Condition[] = [{ fact: 'logPatterns', operator: 'contains', value: customKey(rule) }]
  if (rule.ruleId) all.push({ fact: 'alert', path: '$.alertname', operator: 'equal', value: rule.ruleId })
  return { all }
}

/**
 * One immutable version of the rule catalogue: built-ins plus custom rules, their pattern
 * index and their json-rules-engine rules. Hot reload builds a new Catalogue and swaps it
 * in; evaluations already running finish on the version they started with.
 *
 * Each evaluation runs its own json-rules-engine Engine (the engine keeps one status per
 * run, so engines are never shared between evaluations). It holds the rules that can
 * still match: a custom rule requires its pattern, and so do half the built-ins (a
 * `logPatterns contains` condition at the top of their `all`), so the index has already
 * decided those whose pattern did not occur (false): 1,000 rules cost one scan, and the
 * engine runs about half the built-ins (about 0.3 ms instead of 0.35 to 0.4 per event:
 * most of a run is the engine's own fixed cost).
 *
 * The pattern indexes are built on first use: with analysis threads the worker matches
 * there, each thread building its own from `patternSources()`, so registering a rule on
 * the main thread never pays for an index over the whole catalogue.
 */
export class Catalogue {
  readonly rules: readonly CatalogueRule[]
  private plainIndex: PatternIndex | undefined
  private readonly sources: PatternSource[] = []
  private readonly markedIndexes = new WeakMap<readonly string[], PatternIndex>()
  private readonly builtinRuleProperties: Array<{ properties: RuleProperties; requires: string | null }>
  private readonly customRuleProperties = new Map<string, RuleProperties>()

  constructor(
    readonly builtins: readonly BuiltinRule[],
    readonly custom: readonly CustomRule[],
    readonly builtinVersions: Record<Family, string>,
  ) {
    this.rules = [...builtins, ...custom]
    for (const rule of builtins) {
      for (const signature of rule.signatures) this.sources.push({ key: rule.branch, source: signature })
    }
    for (const rule of custom) this.sources.push({ key: customKey(rule), source: rule.pattern })

    const properties = (rule: CatalogueRule): RuleProperties => ({
      name: String(rule.id),
      conditions: (isBuiltin(rule) ? rule.conditions : customConditions(rule)) as RuleProperties['conditions'],
      event: { type: 'match' },
    })
    this.builtinRuleProperties = builtins.map((rule) => ({
      properties: properties(rule),
      requires: requiredLogPattern(rule.conditions),
    }))
    for (const rule of custom) this.customRuleProperties.set(customKey(rule), properties(rule))
  }

  /** Every pattern as written, to build an identical index elsewhere (an analysis thread). */
  patternSources(): PatternSource[] {
    return this.sources
  }

  withCustomRule(rule: CustomRule): Catalogue {
    return new Catalogue(this.builtins, [...this.custom, rule], this.builtinVersions)
  }

  /** Every rule evaluated on the facts, their log excerpt matched here; findings ranked by D21. */
  diagnose(facts: EvidenceFacts): Promise<Diagnosis> {
    return this.evaluate(facts, this.matchLog(facts.logText))
  }

  /** Which patterns match a (redacted) log excerpt: the first matching line of each key. */
  matchLog(log: string): Map<string, PatternMatch> {
    if (!log) return new Map()
    this.plainIndex ??= PatternIndex.fromSources(this.sources)
    return this.plainIndex.scan(log.length > maxExcerptChars ? log.slice(-maxExcerptChars) : log)
  }

  /**
   * matchLog for raw log bytes whose lines holding one of `markers` need `rewrite` first
   * (redaction), in one pass: PatternIndex.scanRewriting. Returns the rewritten excerpt.
   * The bytes come from the collectors, already within the 512 KiB bound.
   */
  matchRewriting(raw: Buffer, markers: readonly string[], rewrite: (line: string) => string) {
    let index = this.markedIndexes.get(markers)
    if (!index) {
      index = PatternIndex.fromSources(this.sources, markers)
      this.markedIndexes.set(markers, index)
    }
    return index.scanRewriting(raw, rewrite)
  }

  /**
   * Every rule evaluated on the facts and on log matches found by `matchLog` of this same
   * catalogue (the worker matches on an analysis thread); `facts.logText` is not read.
   */
  async evaluate(facts: EvidenceFacts, logMatches: ReadonlyMap<string, PatternMatch>): Promise<Diagnosis> {
    const builtins = this.builtinRuleProperties.flatMap(({ properties, requires }) =>
      requires === null || logMatches.has(requires) ? [properties] : [],
    )
    const candidates = [...logMatches.keys()].flatMap((key) => this.customRuleProperties.get(key) ?? [])
    const engine = new Engine([...builtins, ...candidates], {
      allowUndefinedFacts: true,
      pathResolver,
    })
    const result = await engine.run({
      logPatterns: [...logMatches.keys()],
      evidence: { available: facts.available },
      alert: facts.alert,
      gc: facts.gc,
      container: facts.container,
      metrics: facts.metrics,
      probe: facts.probe,
    })
    const matched = new Set(result.results.map((r) => r.name))
    const finding = (rule: CatalogueRule): Finding => ({
      rule,
      logMatch: logMatches.get(isBuiltin(rule) ? rule.branch : customKey(rule)) ?? null,
    })
    const hits = this.rules.filter((rule) => matched.has(String(rule.id)))
    const specific = hits.filter((rule) => !(isBuiltin(rule) && rule.fallback)).sort(compareFindings)
    // D21: no evidence at all gives TD-07; evidence that no rule explains gives TD-08.
    const fallbackBranch = facts.available ? 'TD-08' : 'TD-07'
    const ranked = specific.length > 0 ? specific : this.rules.filter((rule) => rule.branch === fallbackBranch)
    const matches = ranked.map(finding)
    const last = this.custom[this.custom.length - 1]
    return {
      primary: matches[0] as Finding,
      matches,
      trace: this.rules.map((rule) => ({ id: rule.id, branch: rule.branch, matched: matched.has(String(rule.id)) })),
      catalogue: {
        builtinVersions: this.builtinVersions,
        customRules: this.custom.length,
        lastCustomRuleId: last?.id ?? null,
      },
    }
  }
}
