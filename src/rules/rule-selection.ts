import type { Almanac } from 'json-rules-engine'
import { logFact, matchesOperator, repeatedOperator } from './engine-rules.js'
import { exceptionFactNames } from './exception-facts.js'

// Which engine rules can be true for a run, or almost true (docs/design.md, "Rules cost what
// can match"). A condition on the log (`log matches [patterns]`, `matchesRepeatedly`) is
// false unless the scanner found one of its patterns, and `<exception list> contains
// <value>` is false unless the reader's facts hold the value: such facts are the run's
// atoms. Each engine rule is indexed under atoms of which one must be present for it to
// match or to almost match (explanation.ts: all but one member of its own `all` held); a
// run evaluates the rules indexed under the atoms present, and every rule no atom decides.

/** A fact value a condition needs: a pattern the scanner found, or a value of an exception list fact. */
export type Atom = string
const atom = (fact: string, value: string): Atom => `${fact}\u0000${value}`

const listFacts = new Set<string>(exceptionFactNames)

/**
 * Atoms of which at least one must be present for `condition` to be true, under
 * json-rules-engine's semantics (its `Condition.booleanOperator`: `any`, then `all`, then
 * `not`; an empty `any` or `all` is true); an empty list when it can never be true; null when
 * no atom can decide it: other facts, a negation, a shared condition, a fact reference.
 */
export function necessaryAtoms(condition: unknown): Atom[] | null {
  if (condition === null || typeof condition !== 'object') return null
  const node = condition as Record<string, unknown>
  if (Object.hasOwn(node, 'condition')) return null
  if (Object.hasOwn(node, 'any')) {
    if (!Array.isArray(node.any) || node.any.length === 0) return null
    const atoms: Atom[] = []
    for (const child of node.any) {
      const needed = necessaryAtoms(child)
      if (needed === null) return null
      atoms.push(...needed)
    }
    return atoms
  }
  if (Object.hasOwn(node, 'all')) {
    if (!Array.isArray(node.all)) return null
    // Every child is necessary: the one with the fewest atoms selects best.
    let fewest: Atom[] | null = null
    for (const child of node.all) {
      const needed = necessaryAtoms(child)
      if (needed !== null && (fewest === null || needed.length < fewest.length)) fewest = needed
    }
    return fewest
  }
  if (Object.hasOwn(node, 'not')) return null
  return leafAtoms(node)
}

function leafAtoms(node: Record<string, unknown>): Atom[] | null {
  const { fact, operator, value } = node
  // A path or parameters read something else than the fact's own value.
  if (node.path !== undefined || node.params !== undefined || typeof fact !== 'string') return null
  if (fact === logFact && (operator === matchesOperator || operator === repeatedOperator)) {
    const patterns = ([] as unknown[]).concat(value)
    return patterns.every((pattern) => typeof pattern === 'string') ? patterns.map((p) => atom(logFact, p)) : null
  }
  if (listFacts.has(fact) && operator === 'contains' && typeof value === 'string') return [atom(fact, value)]
  return null
}

/**
 * The atoms under which a rule is indexed: of which one must be present for `conditions` (the
 * engine rule's) to hold, or for `own` (the catalogue rule's own conditions, which the
 * explanation reads) to almost hold: an own `all` of two members or more almost holds when
 * one member fails, so the rule can be left out only when two members cannot hold, which
 * needs atoms of two members and is indexed under all their atoms. Null: every run.
 */
export function selectingAtoms(conditions: unknown, own: unknown = conditions): Atom[] | null {
  const matching = necessaryAtoms(conditions)
  if (matching === null) return null
  const members = own !== null && typeof own === 'object' ? (own as { all?: unknown }).all : undefined
  if (!Array.isArray(members) || members.length < 2) return matching
  const decided = members.map(necessaryAtoms).filter((atoms): atoms is Atom[] => atoms !== null)
  return decided.length < 2 ? null : decided.flat()
}

/** The atoms of a run: the patterns the scanner found and the values of the exception list facts. */
export async function presentAtoms(almanac: Almanac): Promise<Atom[]> {
  const log = await almanac.factValue<unknown>(logFact)
  const atoms = log instanceof Map ? [...log.keys()].map((key) => atom(logFact, String(key))) : []
  for (const fact of exceptionFactNames) {
    const values = await almanac.factValue<unknown>(fact)
    if (Array.isArray(values)) for (const value of values) if (typeof value === 'string') atoms.push(atom(fact, value))
  }
  return atoms
}

/**
 * Rules indexed by the atoms they need. `select` gives the rules that can be true in
 * json-rules-engine's own order of a run (Engine.prioritizeRules): by priority, highest
 * first, and in the order added within a priority.
 */
export class RuleIndex<R extends { priority: number }> {
  private readonly rules: R[] = []
  private readonly byAtom = new Map<Atom, number[]>()
  /** Rules that no atom decides: every run evaluates them. */
  private readonly always: number[] = []

  /** `own`: the catalogue rule's own conditions, when the engine rule wraps them (selectingAtoms). */
  add(rule: R, conditions: unknown, own: unknown = conditions): void {
    const position = this.rules.push(rule) - 1
    const atoms = selectingAtoms(conditions, own)
    if (atoms === null) {
      this.always.push(position)
      return
    }
    for (const needed of new Set(atoms)) {
      const positions = this.byAtom.get(needed)
      if (positions) positions.push(position)
      else this.byAtom.set(needed, [position])
    }
  }

  /** How many rules every run evaluates, whatever its facts. */
  get undecided(): number {
    return this.always.length
  }

  select(present: Iterable<Atom>): R[][] {
    const positions = new Set(this.always)
    for (const found of present) for (const position of this.byAtom.get(found) ?? []) positions.add(position)
    const rule = (position: number) => this.rules[position] as R
    const ordered = [...positions].sort((a, b) => rule(b).priority - rule(a).priority || a - b)
    const sets: R[][] = []
    let previous: number | undefined
    for (const position of ordered) {
      const { priority } = rule(position)
      if (priority !== previous) sets.push([])
      ;(sets[sets.length - 1] as R[]).push(rule(position))
      previous = priority
    }
    return sets
  }
}
