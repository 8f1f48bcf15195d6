import {
  Almanac,
  Engine,
  type EngineOptions,
  type EngineResult,
  type Fact,
  Rule,
  type RuleProperties,
} from 'json-rules-engine'
import { type Atom, RuleIndex } from './rule-selection.js'

/**
 * json-rules-engine's Engine whose run evaluates only the rules that can be true for it, or
 * almost true (docs/design.md, "Rules cost what can match"). The engine stays the one that
 * holds every rule and decides: a run first computes, in its own almanac (json-rules-engine
 * caches a fact within a run), the facts that select, then evaluates the rules indexed under
 * the atoms present and the rules no atom decides, in the engine's own order; every other
 * rule is false for it and not almost matched, so the result is the one of evaluating them all.
 */
export class SelectiveEngine extends Engine {
  private readonly index = new RuleIndex<Rule>()
  /** The run's rules, by priority, while the run starts (prioritizeRules is read then). */
  private selected: Rule[][] | null = null
  /** json-rules-engine's own map of the engine's facts, which every run's almanac gets. */
  declare private readonly facts: Map<string, Fact>

  constructor(private readonly almanacOptions: Pick<EngineOptions, 'allowUndefinedFacts' | 'pathResolver'>) {
    super([], almanacOptions)
  }

  /** `own`: the catalogue rule's own conditions when `properties` wraps them (rule-selection.ts, selectingAtoms). */
  override addRule(properties: RuleProperties, own: unknown = properties.conditions): this {
    const rule = new Rule(properties)
    super.addRule(rule)
    this.index.add(rule, properties.conditions, own)
    return this
  }

  /** How many of the engine's rules every run evaluates, whatever its facts. */
  get undecidedRules(): number {
    return this.index.undecided
  }

  /**
   * json-rules-engine's order of a run's rules (Engine.prioritizeRules, which `run` reads
   * once as it starts): the selection during a selective run, else every rule.
   */
  prioritizeRules(): Rule[][] {
    return this.selected ?? (Engine.prototype as unknown as { prioritizeRules(): Rule[][] }).prioritizeRules.call(this)
  }

  /**
   * Runs the rules that can be true given `facts`: `atomsOf` reads the selecting facts from
   * the run's almanac, whose values the rules then read from its cache. With `every`, every
   * rule runs (the reference the selection is held equal to).
   */
  async runSelected(
    facts: Record<string, unknown>,
    atomsOf: (almanac: Almanac) => Promise<Iterable<Atom>>,
    every = false,
  ): Promise<EngineResult> {
    // As Engine.run fills its almanac: the engine's facts, then the run's own.
    const almanac = new Almanac(this.almanacOptions)
    for (const fact of this.facts.values()) almanac.addFact(fact)
    for (const [id, value] of Object.entries(facts)) almanac.addFact(id, value)
    const present = await atomsOf(almanac)
    this.selected = every ? null : this.index.select(present)
    try {
      return this.run(facts, { almanac })
    } finally {
      this.selected = null
    }
  }
}
