import { readFileSync } from 'node:fs'
import type { Catalogue } from '../rules/catalogue.js'
import { sha256Hex } from '../sha256.js'
import type { ReplicaFacts } from '../store/postgres/replicas.js'

/** A file's SHA-256, or why it could not be read (the start-up check then says more). */
export function fileHash(file: string): string {
  try {
    return sha256Hex(readFileSync(file, 'utf8'))
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`
  }
}

/**
 * The facts replicas compare (docs/operations.md, "Replicas on PostgreSQL"): the same
 * version, rule catalogue and inventory diagnose an alert alike.
 */
export function replicaFacts(version: string, catalogue: Catalogue, inventory: string): ReplicaFacts {
  const builtins = Object.entries(catalogue.builtinVersions)
    .map(([family, v]) => `${family}@${v}`)
    .sort()
    .join(',')
  return { version, catalogue: `${builtins};custom:${catalogue.custom.map((rule) => rule.id).join(',')}`, inventory }
}
