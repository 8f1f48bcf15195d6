import { randomUUID } from 'node:crypto'
import type { Almanac, Event } from 'json-rules-engine'
import { candidateWords } from '../text/exceptions/candidates.js'
import type { ExceptionRecord } from '../text/exceptions/records.js'
import { type Excerpt, excerptOfText } from '../text/excerpt.js'
import { type LineRewriter, PatternIndex, type PatternMatch, type PatternSource } from '../text/pattern-index.js'
import { corroboratingEvidence, type Family } from './builtin-loader.js'
import { type CorroboratingFact, corroboratingFacts } from './corroboration-results.js'
import {
  conditionsOf,
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
import {
  type ExceptionSignature,
  exceptionSignatureOf,
  exceptionSummaryFact,
  exceptionsFact,
} from './exception-conditions.js'
import { addExceptionFacts, type ExceptionSummary, exceptionsOf } from './exception-facts.js'
import { contradicts, exceptionLine } from './exception-findings.js'
import { type ExceptionTaxonomy, loadExceptionTaxonomy } from './exception-taxonomy.js'
import { type DiagnosisExplanation, explainRun } from './explanation.js'
import { engineFacts } from './facts.js'
import { byRank, type Ranked } from './ranking.js'
import { presentAtoms } from './rule-selection.js'
import { SelectiveEngine } from './selective-engine.js'
import type { BuiltinRule, CatalogueRule, CustomRule, Evidence, LogMatches } from './types.js'

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

export interface Diagnosis {
  primary: Finding
  /** Every finding, ranked (docs/design.md, "Ranking"): the primary first. */
  matches: Finding[]
  /** Every rule of the catalogue and whether it matched, in catalogue order. */
  trace: Array<{ id: string | number; branch: string; matched: boolean }>
  /** Why this branch (docs/design.md): the rules that matched or almost matched, and the ranking; null when not asked for. */
  explanation: DiagnosisExplanation | null
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

/** The engine's fact for the excerpt given as text, encoded once for the scanner and the reader. */
const textExcerptFact = 'logTextExcerpt'

/** The last `maxExcerptChars` of a text, as an excerpt; null for no text. */
const windowOf = (text: string): Excerpt | null =>
  text ? excerptOfText(text.length > maxExcerptChars ? text.slice(-maxExcerptChars) : text) : null

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
 * the scanner already found while the excerpt was read and redacted. A run evaluates only
 * the rules that can be true for its facts, or almost true (SelectiveEngine): the others
 * are false, and no explanation shows them.
 *
 * json-rules-engine keeps the state of a run on the instance, so runs are serialised.
 */
export class DiagnosisEngine {
  /** Tells this instance from others in a report's provenance. */
  readonly instance = randomUUID()
  private readonly engine: SelectiveEngine
  /** Catalogue order: built-ins as loaded, then custom rules as registered. */
  private readonly rules: CatalogueRule[] = []
  private readonly byName = new Map<string, CatalogueRule>()
  private readonly patterns = new Map<string, string[]>()
  /** The exception classes and meanings each engine rule tests. */
  private readonly signatures = new Map<string, ExceptionSignature>()
  private readonly taxonomy: ExceptionTaxonomy = loadExceptionTaxonomy()
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
    /** Every rule runs on every event: the reference the selection is held equal to (tests, bench:rules). */
    private readonly everyRule = false,
  ) {
    this.engine = new SelectiveEngine({ allowUndefinedFacts: true, pathResolver })
    this.engine.addOperator<unknown, unknown>(matchesOperator, matches)
    this.engine.addOperator<unknown, unknown>(repeatedOperator, matchesRepeatedly)
    this.engine.setCondition(
      corroborationCondition,
      corroboratingEvidence() as Parameters<SelectiveEngine['setCondition']>[1],
    )
    // Given text, the scanner and the exception reader share one encoding of its window.
    this.engine.addFact<Promise<Excerpt | null>>(textExcerptFact, async (_params, almanac) =>
      windowOf((await almanac.factValue<string | undefined>('logText')) ?? ''),
    )
    this.engine.addFact<Promise<LogMatches>>(logFact, async (_params, almanac) =>
      this.scanWindow(await almanac.factValue<Excerpt | null>(textExcerptFact)),
    )
    addExceptionFacts(this.engine, this.taxonomy, textExcerptFact)
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
    const signature = exceptionSignatureOf(rule)
    const own = conditionsOf(rule)
    for (const { form, name } of forms) {
      this.engine.addRule(form, own)
      this.byName.set(name, rule)
      this.patterns.set(name, patterns)
      this.signatures.set(name, signature)
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
    return this.scanWindow(windowOf(text))
  }

  /** What the shared scanner finds in an excerpt as stored (a replay's evidence bundle). */
  scanExcerpt(excerpt: Excerpt): LogMatches {
    return this.scanWindow(excerpt)
  }

  private scanWindow(excerpt: Excerpt | null): LogMatches {
    if (!excerpt) return new Map()
    this.plainIndex ??= PatternIndex.fromSources(this.sources)
    return this.plainIndex.scanExcerpt(excerpt)
  }

  /** What the exception reader finds in a (redacted) excerpt given as text, over the scanner's window. */
  readExceptions(text: string): ExceptionRecord[] {
    const excerpt = windowOf(text)
    return excerpt ? exceptionsOf(excerpt, this.taxonomy) : []
  }

  /**
   * The scan of raw log bytes whose lines holding one of `markers` need `rewrite` first
   * (redaction), in one pass: PatternIndex.scanRewriting. Returns the rewritten excerpt.
   */
  scanRewriting(raw: Buffer, markers: readonly string[], rewrite: LineRewriter) {
    let marked = this.markedIndexes.get(markers)
    // Built again when a rule was added since.
    if (!marked || marked.patterns !== this.sources.length) {
      // The exception reader's candidate lines are noted in the same pass (its words are line words).
      marked = {
        patterns: this.sources.length,
        index: PatternIndex.fromSources(this.sources, markers, candidateWords),
      }
      this.markedIndexes.set(markers, marked)
    }
    return marked.index.scanRewriting(raw, rewrite)
  }

  /**
   * The rules that can be true for the evidence, or almost true, run on it; the findings
   * ranked by their rules' priorities. The explanation is built unless `explain` is false (a
   * replay's baseline needs none).
   */
  diagnose(evidence: Evidence, options: { explain?: boolean } = {}): Promise<Diagnosis> {
    const run = this.running.then(() => this.runOnce(evidence, options.explain ?? true))
    this.running = run.catch(() => undefined)
    return run
  }

  private async runOnce(evidence: Evidence, explain: boolean): Promise<Diagnosis> {
    const { results, failureResults, almanac } = await this.engine.runSelected(
      engineFacts(evidence),
      presentAtoms,
      this.everyRule,
    )
    const log = await almanac.factValue<LogMatches>(logFact)
    const records = await almanac.factValue<ExceptionRecord[]>(exceptionsFact)
    const summary = await summaryOf(almanac)
    const matched = new Set(results.map((result) => this.byName.get(result.name)))
    const entries = results.map((result) => {
      const rule = this.byName.get(result.name) as CatalogueRule
      const { classification, confidence, corroborated } = (result.event as Event).params as FindingParams
      const signature = this.signatures.get(result.name) ?? noSignature
      const matchedLine = this.firstLine(result.name, log)
      const finding: Finding = {
        rule,
        classification,
        confidence,
        corroborated,
        corroboratedBy: corroboratingFacts(result, corroborated),
        logMatch: matchedLine ?? exceptionLine(signature, records, summary, this.taxonomy),
      }
      const contradicted = matchedLine !== null && contradicts(signature, matchedLine.line, records, summary)
      const ranked: Ranked = {
        finding,
        priority: result.priority ?? 1,
        depth: this.causeDepth(result.name, log),
        contradicted,
      }
      return { ranked, result }
    })
    entries.sort((a, b) => byRank(a.ranked, b.ranked))
    const matches = entries.map(({ ranked }) => ranked.finding)
    const primary = matches[0]
    if (!primary) throw new Error('the rules reached no outcome: TD-07 and TD-08 must be in the catalogue')
    const explanation = explain
      ? explainRun({
          ranked: entries,
          failures: failureResults,
          ruleOf: (name) => this.byName.get(name),
          catalogue: this.rules,
        })
      : null
    return {
      primary,
      matches,
      trace: this.rules.map((rule) => ({
        id: rule.id,
        branch: rule.branch,
        matched: matched.has(rule),
      })),
      explanation,
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

const noSignature: ExceptionSignature = { classes: [], meanings: [] }

const summaryOf = (almanac: Almanac) => almanac.factValue<ExceptionSummary>(exceptionSummaryFact)
