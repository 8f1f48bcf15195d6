import type { Engine } from 'json-rules-engine'
import { readExceptions } from '../text/exceptions/read-exceptions.js'
import type { ExceptionRecord, ThrowableText, Vendor } from '../text/exceptions/records.js'
import type { Excerpt } from '../text/excerpt.js'
import { exceptionSummaryFact, exceptionsFact } from './exception-conditions.js'
import { type ExceptionTaxonomy, loadExceptionTaxonomy } from './exception-taxonomy.js'

// From the exception records of a log to the facts rules test (docs/design.md, "Exceptions
// and codes" and "Ranking"): each record's verdict, then sets a condition tests with
// `contains` (builtin-rules/*.json, custom rules' `exceptionClass` and `exceptionMeaning`).

/** What one record says: the kind of failure its deepest meaningful cause shows, made the component's own. */
export interface Verdict {
  meaning: string
  branch: string | null
  /** How deep in the chain the deciding throwable is (0: the logged one). */
  depth: number
}

/**
 * The verdict of a record (docs/design.md, "Ranking"): the deepest throwable of its chain
 * that has a meaning decides the kind of failure; the nearest throwable, or stack frame,
 * that names a component which has its own meaning for that kind decides whose it is (a
 * refused connection under a PostgreSQL driver is the database unreachable). `wrappers`,
 * outermost first, are the records whose lines own this one's trace: they may say whose it
 * is, never what. Null when nothing in the chain has a meaning.
 */
export function verdictOf(
  record: ExceptionRecord,
  taxonomy: ExceptionTaxonomy,
  wrappers: readonly ThrowableText[] = [],
): Verdict | null {
  const own: ThrowableText[] = [record, ...record.causes]
  const chain = [...wrappers, ...own]
  const vendor = vendorOf(chain, taxonomy)
  for (let depth = own.length - 1; depth >= 0; depth--) {
    const kind =
      taxonomy.meaningOf(own[depth] as ThrowableText, vendor) ?? whereThrown(chain, wrappers.length + depth, taxonomy)
    if (!kind) continue
    const meaning = whose(chain, wrappers.length + depth, kind, taxonomy) ?? kind
    return { meaning, branch: taxonomy.branchOf(meaning), depth }
  }
  return null
}

/**
 * The records whose lines own `record`'s trace, outermost first: a trace printed under a line
 * of its own (an error tree that indents each cause under its wrapper without `Caused by:`)
 * is that line's cause when the line is itself a record (docs/design.md, "Ranking").
 */
function wrappersOf(record: ExceptionRecord, records: readonly ExceptionRecord[]): ExceptionRecord[] {
  const wrappers: ExceptionRecord[] = []
  let owned = record
  while (owned.owner !== null && wrappers.length < records.length) {
    const line = owned.owner
    const owner = records.find((r) => r !== owned && r.line <= line && line <= r.end)
    if (!owner || wrappers.includes(owner)) break
    wrappers.unshift(owner)
    owned = owner
  }
  return wrappers
}

/**
 * What a class that means something only where it is thrown (the JDK's `TimeoutException`)
 * means at `index`: the nearest throwable, from it outwards, whose class or frames name a
 * component says where it was thrown (a cause printed in its wrapper's message has no frames
 * of its own), and that component what it means there (docs/design.md, "Ranking").
 */
function whereThrown(chain: readonly ThrowableText[], index: number, taxonomy: ExceptionTaxonomy): string | null {
  const name = chain[index]?.class
  if (!name || !taxonomy.meansWhereThrown(name)) return null
  for (let i = index; i >= 0; i--) {
    const throwable = chain[i] as ThrowableText
    const names = i === index ? throwable.frames : [throwable.class ?? '', ...throwable.frames]
    const component = names.map((n) => (n ? taxonomy.componentOf(n) : null)).find((c) => c !== null)
    if (component) return taxonomy.thrownMeaning(component, name)
  }
  return null
}

/** The component's meaning for `kind`, from the deciding throwable outwards after the ones beneath it. */
function whose(
  chain: readonly ThrowableText[],
  depth: number,
  kind: string,
  taxonomy: ExceptionTaxonomy,
): string | null {
  const indexes = [...chain.keys()]
  const order = [depth, ...indexes.filter((i) => i > depth), ...indexes.filter((i) => i < depth).reverse()]
  for (const i of order) {
    const throwable = chain[i] as ThrowableText
    const components = [throwable.class ?? '', ...throwable.frames].map((name) =>
      name ? taxonomy.componentOf(name) : null,
    )
    // Its codes name the database too: a SQLSTATE on a line that shows no driver class.
    for (const component of [...components, taxonomy.componentOfCodes(throwable)]) {
      const rerouted = component ? taxonomy.reroute(component, kind) : null
      if (rerouted) return rerouted
    }
  }
  return null
}

/** The database vendor the classes or frames of a chain belong to, the deepest first. */
function vendorOf(chain: readonly ThrowableText[], taxonomy: ExceptionTaxonomy): Vendor | null {
  for (const throwable of [...chain].reverse()) {
    for (const name of [throwable.class ?? '', ...throwable.frames]) {
      const vendor = name ? taxonomy.vendorOf(name) : null
      if (vendor) return vendor
    }
  }
  return null
}

/**
 * A record counts unless the log says it was handled: logged at DEBUG or TRACE, or with a
 * retry announced. A record of a code alone (a class-less `SQLState: 40001` line) counts
 * for a finding but never corroborates one: a retried statement logs it too. Nor does a
 * message printed without its class (a JVM error's `Java heap space` alone, a driver's own
 * template): the class is inferred from it, weaker evidence than the class's own line.
 */
export const counts = (record: ExceptionRecord) =>
  record.level !== 'debug' && record.level !== 'trace' && !record.retried
const corroborates = (record: ExceptionRecord) =>
  counts(record) && record.class !== null && record.classFromReason !== true

/** The root of every class a log prints as a throwable, in `exceptionClasses` whenever one counts. */
export const throwableClass = 'java.lang.Throwable'

/** The facts rules test, by engine fact name. Every list is sorted and holds each value once. */
export interface ExceptionFacts {
  /** Verdicts of the records that count. */
  exceptionMeanings: string[]
  /** Verdicts of at least two records that corroborate, on different lines. */
  exceptionMeaningsRecurring: string[]
  /** Verdicts of records the log says were handled, and of no record that counts. */
  exceptionMeaningsHandled: string[]
  /** The branches the verdicts that count support. */
  exceptionBranches: string[]
  /** Every class of the chains of the records that count, and their ancestors (java.lang.Throwable among them). */
  exceptionClasses: string[]
  /** The classes (with ancestors) of at least two corroborating records on different lines. */
  exceptionClassesRecurring: string[]
}

export const exceptionFactNames = [
  'exceptionMeanings',
  'exceptionMeaningsRecurring',
  'exceptionMeaningsHandled',
  'exceptionBranches',
  'exceptionClasses',
  'exceptionClassesRecurring',
] as const satisfies ReadonlyArray<keyof ExceptionFacts>

/** Values seen on at least two different lines. */
class Lines {
  private readonly lines = new Map<string, Set<number>>()
  add(value: string, line: number): void {
    const lines = this.lines.get(value) ?? new Set<number>()
    lines.add(line)
    this.lines.set(value, lines)
  }
  all = () => [...this.lines.keys()].sort()
  recurring = () =>
    [...this.lines]
      .filter(([, lines]) => lines.size >= 2)
      .map(([value]) => value)
      .sort()
}

/** The facts, and each record's verdict (for the ranking and the line a finding shows). */
export interface ExceptionSummary extends ExceptionFacts {
  verdicts: Array<Verdict | null>
}

export function summarizeExceptions(
  records: readonly ExceptionRecord[],
  taxonomy: ExceptionTaxonomy,
): ExceptionSummary {
  const verdicts = records.map((record) => verdictOf(record, taxonomy, wrappersOf(record, records)))
  const meanings = new Lines()
  const corroborating = new Lines()
  const handled = new Set<string>()
  const classes = new Lines()
  const corroboratingClasses = new Lines()
  records.forEach((record, i) => {
    const verdict = verdicts[i] ?? null
    if (!counts(record)) {
      if (verdict) handled.add(verdict.meaning)
      return
    }
    if (verdict) meanings.add(verdict.meaning, record.line)
    if (verdict && corroborates(record)) corroborating.add(verdict.meaning, record.line)
    for (const throwable of [record, ...record.causes]) {
      // Every throwable is a java.lang.Throwable (taxonomy.isA), listed or not: the fact says
      // the log threw something, which a repeated wording is then measured against.
      const ancestors = throwable.class ? [...taxonomy.ancestors(throwable.class), throwableClass] : []
      for (const name of ancestors) {
        classes.add(name, record.line)
        if (corroborates(record)) corroboratingClasses.add(name, record.line)
      }
    }
  })
  const counted = meanings.all()
  return {
    verdicts,
    exceptionMeanings: counted,
    exceptionMeaningsRecurring: corroborating.recurring(),
    exceptionMeaningsHandled: [...handled].filter((m) => !counted.includes(m)).sort(),
    exceptionBranches: [...new Set(counted.map((m) => taxonomy.branchOf(m)).filter((b) => b !== null))].sort(),
    exceptionClasses: classes.all(),
    exceptionClassesRecurring: corroboratingClasses.recurring(),
  }
}

/**
 * The exception records of a (redacted) excerpt, with the shipped taxonomy's component
 * packages noted on frames: what the analysis thread sends with the scanner's matches, and
 * what the engine reads itself when it is given the text.
 */
export function exceptionsOf(
  excerpt: Excerpt,
  taxonomy: ExceptionTaxonomy = loadExceptionTaxonomy(),
  /** The lines holding a candidate word, when the scan already noted them (read-exceptions.ts). */
  candidateLines?: readonly number[],
): ExceptionRecord[] {
  return readExceptions(excerpt, {
    componentPrefixes: taxonomy.componentPrefixes,
    ...(candidateLines ? { candidateLines } : {}),
  })
}

/**
 * The exception facts of an engine: the records (read from the excerpt fact `excerptFact`
 * when the evidence brings none), what the taxonomy makes of them, and each list, all
 * computed at most once a run (json-rules-engine caches facts within a run).
 */
export function addExceptionFacts(engine: Engine, taxonomy: ExceptionTaxonomy, excerptFact: string): void {
  engine.addFact(exceptionsFact, async (_params, almanac) => {
    const excerpt = await almanac.factValue<Excerpt | null>(excerptFact)
    return excerpt ? exceptionsOf(excerpt, taxonomy) : []
  })
  engine.addFact<Promise<ExceptionSummary>>(exceptionSummaryFact, async (_params, almanac) =>
    summarizeExceptions(await almanac.factValue<ExceptionRecord[]>(exceptionsFact), taxonomy),
  )
  for (const name of exceptionFactNames) {
    engine.addFact(
      name,
      async (_params, almanac) => (await almanac.factValue<ExceptionSummary>(exceptionSummaryFact))[name],
    )
  }
}
