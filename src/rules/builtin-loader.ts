import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAjv, loadSchema } from '../ajv.js'
import { packageRoot } from '../paths.js'
import type { BuiltinRuleFile, TopCondition } from '../schema-types/builtin-rule-file.js'
import { toDetails } from '../schema-words.js'
import { patternsOf } from './engine-rules.js'
import { meaningsOf } from './exception-conditions.js'
import type { BuiltinRule } from './types.js'

export const builtinRulesDir = join(packageRoot, 'builtin-rules')
export const builtinFamilies = ['TD', 'AH', 'GC', 'TH'] as const
export type Family = (typeof builtinFamilies)[number]

/** The 20 protected built-in branches of the spec. */
export const builtinBranches = [
  ...['01', '02', '03', '04', '05', '06', '07', '08'].map((n) => `TD-${n}`),
  ...['01', '02', '03', '04', '05'].map((n) => `AH-${n}`),
  ...['01', '02', '03', '04'].map((n) => `GC-${n}`),
  ...['01', '02', '03'].map((n) => `TH-${n}`),
]

const ajv = createAjv()
const validate = ajv.compile<BuiltinRuleFile>(loadSchema('builtin-rules.schema.json'))
const validateCondition = ajv.compile<TopCondition>({ $ref: 'builtin-rules.schema.json#/$defs/topCondition' })

export class BuiltinRulesError extends Error {}

/**
 * Loads and validates `builtin-rules/{td,ah,gc,th}.json` (docs/design.md, "Rules"). A file that does not match
 * its schema, a rule in the wrong family file, or a missing or extra branch stops the load.
 */
export function loadBuiltinRules(dir = builtinRulesDir): { rules: BuiltinRule[]; versions: Record<Family, string> } {
  const rules: BuiltinRule[] = []
  const versions = {} as Record<Family, string>
  for (const family of builtinFamilies) {
    const file = join(dir, `${family.toLowerCase()}.json`)
    const data: unknown = JSON.parse(readFileSync(file, 'utf8'))
    if (!validate(data)) {
      const problems = toDetails(validate.errors).map((d) => `${d.path} ${d.message}`)
      throw new BuiltinRulesError(`${file}: ${problems.join('; ')}`)
    }
    if (data.family !== family) throw new BuiltinRulesError(`${file}: family must be ${family}`)
    versions[family] = data.version
    for (const rule of data.rules) {
      if (!rule.branch.startsWith(`${family}-`))
        throw new BuiltinRulesError(`${file}: ${rule.branch} is not a ${family} rule`)
      const patterns = patternsOf(rule.conditions)
      const meanings = meaningsOf(rule.conditions)
      // A consequence the rule does not test would silently corroborate nothing less.
      const foreign = [
        ...(rule.consequences?.patterns ?? []).filter((p) => !patterns.includes(p)),
        ...(rule.consequences?.meanings ?? []).filter((m) => !meanings.includes(m)),
      ]
      if (foreign.length > 0)
        throw new BuiltinRulesError(
          `${file}: ${rule.branch} consequences not among its conditions: ${foreign.join(', ')}`,
        )
      rules.push({
        ...rule,
        id: `builtin-${rule.branch}`,
        family,
        version: data.version,
        ruleId: null,
        patterns,
        meanings,
      })
    }
  }
  const branches = rules.map((rule) => rule.branch).sort()
  if (JSON.stringify(branches) !== JSON.stringify([...builtinBranches].sort())) {
    throw new BuiltinRulesError(
      `built-in branches must be exactly ${builtinBranches.join(', ')}; found ${branches.join(', ')}`,
    )
  }
  return { rules, versions }
}

let corroboration: TopCondition | undefined

/**
 * The facts that corroborate any confirmed cause found in the logs
 * (`builtin-rules/corroboration.json`; docs/design.md, "Confidence is earned"): read and
 * validated once.
 */
export function corroboratingEvidence(): TopCondition {
  if (corroboration) return corroboration
  const file = join(builtinRulesDir, 'corroboration.json')
  const data: unknown = JSON.parse(readFileSync(file, 'utf8'))
  if (!validateCondition(data)) {
    const problems = toDetails(validateCondition.errors).map((d) => `${d.path} ${d.message}`)
    throw new BuiltinRulesError(`${file}: ${problems.join('; ')}`)
  }
  corroboration = data
  return data
}
