import { type Pattern, PatternSyntaxError, parsePattern } from '../text/pattern.js'
import { type Family, loadBuiltinRules } from './builtin-loader.js'
import { Catalogue } from './catalogue.js'
import type { PatternSafety } from './pattern-safety.js'
import { RuleRejectedError } from './rule-errors.js'
import {
  type BuiltinRule,
  type CatalogueRule,
  type Category,
  type CustomRule,
  type CustomRuleInput,
  type CustomRuleStore,
  isBuiltin,
  type NewCustomRule,
} from './types.js'

/**
 * The rule catalogue of the running service: registration and look-up (docs/design.md,
 * "Rules"). A registered rule is committed, then the catalogue version is swapped and the
 * rule handed to every listener (the live engines add it); after a restart the catalogue is
 * built again from SQLite and builtin-rules/.
 */
export class RulesService {
  private current: Catalogue
  private queue: Promise<unknown> = Promise.resolve()
  private readonly listeners: Array<(rule: CustomRule) => void> = []

  constructor(
    private readonly store: CustomRuleStore,
    private readonly safety: Pick<PatternSafety, 'verdict'>,
    builtin: { rules: BuiltinRule[]; versions: Record<Family, string> } = loadBuiltinRules(),
    private readonly clock: () => Date = () => new Date(),
    /** Custom rules the catalogue may hold, the seed included (docs/design.md). */
    private readonly maxCustomRules = 1000,
  ) {
    this.current = new Catalogue(builtin.rules, store.all(), builtin.versions)
  }

  get catalogue(): Catalogue {
    return this.current
  }

  /** Calls `listener` with every rule registered from now on, once it is committed. */
  onRegistered(listener: (rule: CustomRule) => void): void {
    this.listeners.push(listener)
  }

  /** Built-ins by branch, then custom rules by id; optionally one category. */
  list(category?: Category): CatalogueRule[] {
    const builtins = [...this.current.builtins].sort((a, b) => a.branch.localeCompare(b.branch))
    const all: CatalogueRule[] = [...builtins, ...this.current.custom]
    return category ? all.filter((rule) => rule.category === category) : all
  }

  /** A rule by database id (`12`), built-in id (`builtin-TD-01`) or branch (`TD-01`). */
  find(idOrBranch: string): CatalogueRule | undefined {
    const rules = this.current.rules
    if (/^\d{1,15}$/.test(idOrBranch)) return this.current.custom.find((rule) => rule.id === Number(idOrBranch))
    return rules.find((rule) => rule.branch === idOrBranch || (isBuiltin(rule) && rule.id === idOrBranch))
  }

  /**
   * Registers a schema-valid rule: branch, name and pattern conflicts, the limit, pattern
   * safety (each a RuleRejectedError), then one transaction that stores it and builds the next catalogue, which is live
   * before this resolves. Registrations run one at a time.
   */
  register(input: CustomRuleInput, principal: string): Promise<CustomRule> {
    const run = this.queue.then(() => this.registerNow(input, principal))
    this.queue = run.catch(() => undefined)
    return run
  }

  private async registerNow(input: CustomRuleInput, principal: string): Promise<CustomRule> {
    const rule = normalize(input, principal)
    let pattern: Pattern
    try {
      pattern = parsePattern(rule.pattern)
    } catch (error) {
      const message = error instanceof PatternSyntaxError ? error.message : 'invalid pattern'
      throw new RuleRejectedError('invalid_rule', 'The pattern is not a valid regular expression.', [
        { path: '/pattern', message },
      ])
    }
    this.checkConflicts(rule)
    if (this.current.custom.length >= this.maxCustomRules) {
      throw new RuleRejectedError(
        'limit_reached',
        `The catalogue holds its maximum of ${this.maxCustomRules} custom rules (DIAG_MAX_CUSTOM_RULES).`,
      )
    }
    const verdict = await this.safety.verdict(pattern)
    if (!verdict.safe) {
      throw new RuleRejectedError('unsafe_pattern', `The pattern is unsafe to run over log text: ${verdict.reason}.`, [
        { path: '/pattern', message: verdict.reason },
      ])
    }

    const stored = this.store.insert(rule, this.clock().toISOString())
    this.current = this.current.withCustomRule(stored)
    for (const listener of this.listeners) listener(stored)
    return stored
  }

  private checkConflicts(rule: NewCustomRule): void {
    const { builtins, custom } = this.current
    if (builtins.some((r) => r.branch === rule.branch)) {
      throw new RuleRejectedError('branch_conflict', `Branch ${rule.branch} is a protected built-in branch.`)
    }
    if (custom.some((r) => r.branch === rule.branch)) {
      throw new RuleRejectedError('branch_conflict', `Branch ${rule.branch} is already registered.`)
    }
    const name = foldedName(rule.ruleName)
    if ([...builtins, ...custom].some((r) => foldedName(r.ruleName) === name)) {
      throw new RuleRejectedError('name_conflict', `A rule named ${rule.ruleName} already exists.`)
    }
    const patterns = [...builtins.flatMap((r) => r.patterns), ...custom.map((r) => r.pattern)]
    if (patterns.includes(rule.pattern)) {
      throw new RuleRejectedError('pattern_conflict', 'A rule with this pattern already exists.')
    }
  }
}

/**
 * Names that differ only in case or Unicode form read as the same rule in a report, so
 * they conflict: compared after NFKC normalisation and case folding.
 */
const foldedName = (name: string) => name.normalize('NFKC').toLowerCase()

/**
 * Lower-case classification and confidence, ruleId null when absent. `createdBy` is
 * the name of the token that registered the rule, never a value from the request body.
 */
function normalize(input: CustomRuleInput, principal: string): NewCustomRule {
  return {
    ruleId: input.ruleId ?? null,
    branch: input.branch,
    ruleName: input.ruleName,
    category: input.category,
    targetSource: input.targetSource,
    pattern: input.pattern,
    assessment: input.assessment,
    classification: input.classification.toLowerCase() as CustomRule['classification'],
    confidence: input.confidence.toLowerCase() as CustomRule['confidence'],
    recommendedActions: input.recommendedActions,
    createdBy: principal,
    principal,
  }
}
