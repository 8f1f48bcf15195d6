import { randomUUID } from 'node:crypto'
import type { Almanac } from 'json-rules-engine'
import type { ExceptionRecord } from '../text/exceptions/records.js'
import type { Excerpt } from '../text/excerpt.js'
import type { LineRewriter } from '../text/pattern-index.js'
import { corroboratingEvidence, type Family } from './builtin-loader.js'
import { CatalogueScanner, windowOf } from './catalogue-scanner.js'
import {
  conditionsOf,
  corroborationCondition,
  engineRules,
  logFact,
  matches,
  matchesOperator,
  matchesRepeatedly,
  repeatedOperator,
  rulePatterns,
} from './engine-rules.js'
import { exceptionSignatureOf, exceptionSummaryFact, exceptionsFact } from './exception-conditions.js'
import { addExceptionFacts, type ExceptionSummary, exceptionsOf } from './exception-facts.js'
import { type ExceptionTaxonomy, loadExceptionTaxonomy } from './exception-taxonomy.js'
import { type DiagnosisExplanation, explainRun } from './explanation.js'
import { engineFacts } from './facts.js'
import { type EngineRuleEntry, type Finding, rankedFindings } from './findings.js'
import { presentAtoms } from './rule-selection.js'
import { SelectiveEngine } from './selective-engine.js'
import type { BuiltinRule, CatalogueRule, CustomRule, Evidence, LogMatches } from './types.js'

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

/** The engine's fact for the excerpt given as text, encoded once for the scanner and the reader. */
const textExcerptFact = 'logTextExcerpt'

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
 * (CatalogueScanner) computes, once per run, from the excerpt, unless the evidence brings what
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
  /** Each engine rule's catalogue rule, patterns and exception signature, by its name. */
  private readonly byName = new Map<string, EngineRuleEntry>()
  private readonly taxonomy: ExceptionTaxonomy = loadExceptionTaxonomy()
  private readonly scanner = new CatalogueScanner()
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
      this.scanner.scanWindow(await almanac.factValue<Excerpt | null>(textExcerptFact)),
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
      this.byName.set(name, { rule, patterns, signature })
    }
    this.rules.push(rule)
    this.scanner.add(patterns)
  }

  /** What the shared scanner finds in a (redacted) excerpt: the first line of each pattern. */
  scan(text: string): LogMatches {
    return this.scanner.scanWindow(windowOf(text))
  }

  /** What the shared scanner finds in an excerpt as stored (a replay's evidence bundle). */
  scanExcerpt(excerpt: Excerpt): LogMatches {
    return this.scanner.scanWindow(excerpt)
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
    return this.scanner.scanRewriting(raw, markers, rewrite)
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
    const matched = new Set(results.map((result) => this.byName.get(result.name)?.rule))
    const entries = rankedFindings(results, (name) => this.byName.get(name) as EngineRuleEntry, {
      log: await almanac.factValue<LogMatches>(logFact),
      records: await almanac.factValue<ExceptionRecord[]>(exceptionsFact),
      summary: await almanac.factValue<ExceptionSummary>(exceptionSummaryFact),
      taxonomy: this.taxonomy,
    })
    const matches = entries.map(({ ranked }) => ranked.finding)
    const primary = matches[0]
    if (!primary) throw new Error('the rules reached no outcome: TD-07 and TD-08 must be in the catalogue')
    const explanation = explain
      ? explainRun({
          ranked: entries,
          failures: failureResults,
          ruleOf: (name) => this.byName.get(name)?.rule,
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
}
