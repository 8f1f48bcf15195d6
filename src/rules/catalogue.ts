import type { Family } from './builtin-loader.js'
import type { BuiltinRule, CatalogueRule, CustomRule } from './types.js'

/**
 * One version of the rule catalogue as the API shows it: the built-ins and the custom rules
 * in registration order. Registration builds the next version and swaps it in; the live
 * engines (rules/diagnosis-engine.ts) get the new rule added instead of being rebuilt.
 */
export class Catalogue {
  readonly rules: readonly CatalogueRule[]

  constructor(
    readonly builtins: readonly BuiltinRule[],
    readonly custom: readonly CustomRule[],
    readonly builtinVersions: Record<Family, string>,
  ) {
    this.rules = [...builtins, ...custom]
  }

  withCustomRule(rule: CustomRule): Catalogue {
    // Another replica's rules may arrive out of order: the catalogue stays in id order.
    const custom = [...this.custom, rule].sort((a, b) => a.id - b.id)
    return new Catalogue(this.builtins, custom, this.builtinVersions)
  }
}
