import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { createAjv, loadSchema } from '../ajv.js'
import type { InventoryFile } from '../schema-types/inventory-file.js'
import { toDetails } from '../schema-words.js'

export interface InstanceSources {
  logs: string[]
  spoolDir?: string
  container?: string
  metricsUrl?: string
  healthUrl?: string
}

/**
 * The operator's inventory (D14): evidence sources per appserver_instance, with every path
 * already absolute. The webhook payload only ever selects an entry by exact key.
 */
export interface Inventory {
  roots: string[]
  sources(instance: string): InstanceSources | undefined
}

const validate = createAjv().compile<InventoryFile>(loadSchema('inventory.schema.json'))

export class InventoryError extends Error {}

export function loadInventory(file: string): Inventory {
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new InventoryError(
      `DIAG_INVENTORY: ${file} ${error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read'}`,
    )
  }
  if (!validate(data)) {
    const problems = toDetails(validate.errors).map((d) => `${d.path} ${d.message}`)
    throw new InventoryError(`DIAG_INVENTORY: ${file}: ${problems.join('; ')}`)
  }
  const base = dirname(resolve(file))
  const absolute = (path: string) => (isAbsolute(path) ? resolve(path) : resolve(base, path))
  // A Map, not the parsed object: a label such as "__proto__" must find nothing.
  const instances = new Map<string, InstanceSources>()
  for (const [name, entry] of Object.entries(data.instances)) {
    instances.set(name, {
      ...entry,
      logs: (entry.logs ?? []).map(absolute),
      ...(entry.spoolDir ? { spoolDir: absolute(entry.spoolDir) } : {}),
    })
  }
  return { roots: (data.roots ?? [base]).map(absolute), sources: (instance) => instances.get(instance) }
}
