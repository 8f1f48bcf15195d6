import { join } from 'node:path'
import { builtinRulesDir } from './builtin-loader.js'
import { PatternSafety } from './pattern-safety.js'
import { parseRuleInput, readRulepack } from './rule-input.js'
import type { RulesService } from './rules-service.js'

export const seedRulepackFile = join(builtinRulesDir, 'seed-rulepack.json')
export const seedPrincipal = 'seed'

/**
 * D29: on the first start of an empty database, TD-09..TD-18 are registered through the
 * same path as POST /api/v1/rules (schema, conflicts, pattern safety, append-only insert),
 * as `seed`. Rules cannot be deleted, so a non-empty table means this already happened.
 */
export async function seedCustomRules(service: RulesService, file = seedRulepackFile): Promise<number> {
  if (service.catalogue.custom.length > 0) return 0
  const rules = readRulepack(file)
  for (const body of rules) await service.register(parseRuleInput(body), seedPrincipal, patientSafety)
  return rules.length
}

/**
 * The seed's patterns are shipped and tested safe (test/unit/pattern-safety.test.ts); on a
 * busy host proving it again can take longer than an API request may wait, and a first
 * start must not fail for that: the seed's check waits up to 30 s (docs/design.md, D29).
 */
const patientSafety = new PatternSafety({ timeoutMs: 30_000, cacheSize: 100 })
