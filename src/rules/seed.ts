import { join } from 'node:path'
import { builtinRulesDir } from './builtin-loader.js'
import type { PatternSafety } from './pattern-safety.js'
import { RuleRejectedError } from './rule-errors.js'
import { parseRuleInput, rulepackOf } from './rule-input.js'
import type { RulesService } from './rules-service.js'
import { readPinnedFile } from './shipped-rules.js'

export const seedRulepackName = 'seed-rulepack.json'
export const seedRulepackFile = join(builtinRulesDir, seedRulepackName)
export const seedPrincipal = 'seed'

/**
 * D29: on the first start of an empty database, TD-09..TD-18 are registered through the
 * same path as POST /api/v1/rules (schema, conflicts, append-only insert), as `seed`.
 * Rules cannot be deleted, so a non-empty table means this already happened. A seed file
 * whose bytes are not the pinned ones is refused (BuiltinRulesError) before anything is
 * registered. Replicas starting together on one PostgreSQL seed at once: a seed rule that
 * another replica registered first is a conflict here, and is that replica's, so it is
 * taken (`catchUp`, the rules other replicas committed) rather than refused.
 */
export async function seedCustomRules(
  service: RulesService,
  dir = builtinRulesDir,
  catchUp: () => Promise<void> = async () => {},
): Promise<number> {
  await catchUp()
  if (service.catalogue.custom.length > 0) return 0
  const rules = rulepackOf(readPinnedFile(seedRulepackName, dir).toString('utf8'))
  let registered = 0
  for (const body of rules) {
    try {
      await service.register(parseRuleInput(body), seedPrincipal, provenInCi)
      registered++
    } catch (error) {
      if (!(error instanceof RuleRejectedError && error.reason.endsWith('_conflict'))) throw error
    }
  }
  await catchUp()
  return registered
}

/**
 * The seed's patterns are not proven again at start: its bytes are the pinned ones, and
 * for those bytes CI proves every pattern safe with the API's own check
 * (test/unit/pattern-safety.test.ts). Proving them here would measure the host, not the
 * patterns: a busy host once failed a first start that way (docs/design.md, D29).
 */
const provenInCi: Pick<PatternSafety, 'verdict'> = { verdict: async () => ({ safe: true }) }
