import { type Pattern, PatternSyntaxError, parsePattern } from '../text/pattern.js'
import { type Family, loadBuiltinRules } from './builtin-loader.js'
import { Catalogue } from './catalogue.js'
import { rulePatterns } from './engine-rules.js'
import type { PatternSafety } from './pattern-safety.js'
import { PatternCheckUnavailableError, RuleRejectedError, type RuleRejection } from './rule-errors.js'
import { exceptionFields } from './rule-input.js'
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
   * safety (each a RuleRejectedError naming the rule; a safety check the host could not
   * finish is a PatternCheckUnavailableError), then one transaction that stores it and builds the next catalogue, which is live
   * before this resolves. Registrations run one at a time. `safety` replaces the
   * service's pattern check for this call (the seed's pinned files are not proven again, rules/seed.ts).
   */
  register(input: CustomRuleInput, principal: string, safety = this.safety): Promise<CustomRule> {
    return this.oneAtATime(() => this.registerNow(input, principal, safety))
  }

  /**
   * Everything `register` checks, without storing: the rule as it would be stored, or the
   * RuleRejectedError it would meet (`POST /api/v1/rules?dryRun=true`, `appserver-diag rules test`).
   */
  check(input: CustomRuleInput, principal: string): Promise<NewCustomRule> {
    return this.oneAtATime(() => this.vet(input, principal, this.safety))
  }

  /**
   * Everything `register` checks, for each rule of a candidate pack in turn, each against the
   * catalogue the rules before it would leave (a replay, docs/design.md "Replay"): the rules as
   * they would be stored, with the ids they would get, and the catalogue they were checked
   * against; or the first rule's refusal. Nothing is stored and the catalogue does not change.
   */
  checkAll(
    inputs: readonly CustomRuleInput[],
    principal: string,
  ): Promise<{ candidates: CustomRule[]; catalogue: Catalogue }> {
    return this.oneAtATime(async () => {
      const checkedAgainst = this.current
      let catalogue = checkedAgainst
      const createdAt = this.clock().toISOString()
      const candidates: CustomRule[] = []
      for (const input of inputs) {
        const { principal: _, ...rule } = await this.vet(input, principal, this.safety, catalogue)
        const id = Math.max(0, ...catalogue.custom.map((known) => known.id)) + 1
        const candidate: CustomRule = { ...rule, id, createdAt }
        candidates.push(candidate)
        catalogue = catalogue.withCustomRule(candidate)
      }
      return { candidates, catalogue: checkedAgainst }
    })
  }

  /** Runs after every registration and check queued before it: each sees the catalogue they left. */
  private oneAtATime<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task)
    this.queue = run.catch(() => undefined)
    return run
  }

  private async registerNow(
    input: CustomRuleInput,
    principal: string,
    safety: Pick<PatternSafety, 'verdict'>,
  ): Promise<CustomRule> {
    const rule = await this.vet(input, principal, safety)
    const stored = await this.store.insert(rule, this.clock().toISOString())
    this.adopt(stored)
    return stored
  }

  /**
   * A committed rule into the catalogue and every live engine, once: one registered here, or
   * by another replica (its notification, or the catalogue check before a diagnosis). Rules
   * are append-only, so a rule this catalogue already holds is the same rule.
   */
  adopt(rule: CustomRule): void {
    if (this.current.custom.some((known) => known.id === rule.id)) return
    this.current = this.current.withCustomRule(rule)
    for (const listener of this.listeners) listener(rule)
  }

  private async vet(
    input: CustomRuleInput,
    principal: string,
    safety: Pick<PatternSafety, 'verdict'>,
    catalogue = this.current,
  ): Promise<NewCustomRule> {
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
    this.checkConflicts(rule, catalogue)
    if (catalogue.custom.length >= this.maxCustomRules) {
      throw new RuleRejectedError(
        'limit_reached',
        `The catalogue holds its maximum of ${this.maxCustomRules} custom rules (DIAG_MAX_CUSTOM_RULES).`,
      )
    }
    const verdict = await safety.verdict(pattern)
    const named = `rule ${rule.branch} (${rule.ruleName})`
    if (!verdict.safe && verdict.undecided) {
      throw new PatternCheckUnavailableError(
        `The safety of the pattern ${rule.pattern} of ${named} could not be decided now: ${verdict.reason}.`,
      )
    }
    if (!verdict.safe) {
      throw new RuleRejectedError(
        'unsafe_pattern',
        `The pattern ${rule.pattern} of ${named} is unsafe to run over log text: ${verdict.reason}.`,
        [{ path: '/pattern', message: verdict.reason }],
      )
    }
    return rule
  }

  /** The first registered rule the new one conflicts with, named in the error (and its 409). */
  private checkConflicts(rule: NewCustomRule, catalogue: Catalogue): void {
    const { builtins, custom } = catalogue
    const all: CatalogueRule[] = [...builtins, ...custom]
    const refuse = (reason: RuleRejection, what: string, other: CatalogueRule, path: string) => {
      const named = `rule ${other.id} (${other.branch} ${other.ruleName})`
      throw new RuleRejectedError(reason, `${what} ${named}.`, [{ path, message: `the same as ${named}` }], {
        id: other.id,
        branch: other.branch,
        ruleName: other.ruleName,
      })
    }
    const builtin = builtins.find((r) => r.branch === rule.branch)
    if (builtin) refuse('branch_conflict', `Branch ${rule.branch} is a protected built-in branch:`, builtin, '/branch')
    const sameBranch = custom.find((r) => r.branch === rule.branch)
    if (sameBranch) refuse('branch_conflict', `Branch ${rule.branch} is already registered as`, sameBranch, '/branch')
    const name = foldedName(rule.ruleName)
    const sameName = all.find((r) => foldedName(r.ruleName) === name)
    if (sameName) refuse('name_conflict', `The name ${rule.ruleName} is already taken by`, sameName, '/ruleName')
    const samePattern = all.find((r) => rulePatterns(r).includes(rule.pattern))
    if (samePattern) refuse('pattern_conflict', 'The pattern is already used by', samePattern, '/pattern')
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
    ...exceptionFields(input),
    assessment: input.assessment,
    classification: input.classification.toLowerCase() as CustomRule['classification'],
    confidence: input.confidence.toLowerCase() as CustomRule['confidence'],
    priority: input.priority ?? null,
    recommendedActions: input.recommendedActions,
    createdBy: principal,
    principal,
  }
}
