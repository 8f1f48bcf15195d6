import type { Family } from './builtin-loader.js'
import { type CatalogueRule, isBuiltin } from './types.js'

const classificationRank = { confirmed_cause: 0, probable_cause: 1, undetermined: 2 } as const
const familyRank: Record<Family, number> = { TD: 0, TH: 1, GC: 2, AH: 3 }

/**
 * D21: confirmed > probable > undetermined; at equal classification an operator's custom
 * rule before a built-in (it is more specific); then built-ins by family TD, TH, GC, AH
 * and branch number, custom rules by id. A total order, so the result never depends on
 * the order rules were added or evaluated in.
 */
export function compareFindings(a: CatalogueRule, b: CatalogueRule): number {
  const byClass = classificationRank[a.classification] - classificationRank[b.classification]
  if (byClass !== 0) return byClass
  const aBuiltin = isBuiltin(a)
  const bBuiltin = isBuiltin(b)
  if (aBuiltin !== bBuiltin) return aBuiltin ? 1 : -1
  if (isBuiltin(a) && isBuiltin(b)) {
    const byFamily = familyRank[a.family] - familyRank[b.family]
    return byFamily !== 0 ? byFamily : a.branch.localeCompare(b.branch)
  }
  return (a.id as number) - (b.id as number)
}
