import type { ErrorDetail } from '../errors.js'

/** Why a rule was not registered; http/ answers each with its status and error code. */
export type RuleRejection =
  | 'invalid_rule'
  | 'unsafe_pattern'
  | 'branch_conflict'
  | 'name_conflict'
  | 'pattern_conflict'
  | 'limit_reached'

/** The registered rule a refused one conflicts with. */
export interface ConflictingRule {
  id: number | string
  branch: string
  ruleName: string
}

/** A rule refused by the rules module: a fact about the rule, not an HTTP answer. */
export class RuleRejectedError extends Error {
  constructor(
    readonly reason: RuleRejection,
    message: string,
    readonly details?: ErrorDetail[],
    readonly conflict?: ConflictingRule,
  ) {
    super(message)
    this.name = 'RuleRejectedError'
  }
}

/**
 * The pattern's safety could not be decided now (recheck ran out of wall-clock time on a
 * busy host): a condition of the host, not a fact about the rule. Nothing was stored; the
 * same request may succeed later (docs/design.md, "What a rule may cost").
 */
export class PatternCheckUnavailableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PatternCheckUnavailableError'
  }
}
