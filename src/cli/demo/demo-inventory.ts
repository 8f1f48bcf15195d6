import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import type { InventoryFile } from '../../schema-types/inventory-file.js'
import type { SampleEndpoints } from './sample-endpoints.js'

/**
 * The inventory of the demo's service: the sample instances of `examplesInventory` (their
 * logs and spool, as absolute paths under the examples folder, the allowed root) with the
 * metrics and health endpoints the demo serves. The demo is the operator here: as in
 * production, the inventory names the evidence sources, never the webhook.
 */
export function writeDemoInventory(file: string, examplesInventory: string, endpoints: SampleEndpoints): void {
  const examples = dirname(resolve(examplesInventory))
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(examples, path))
  const source = JSON.parse(readFileSync(examplesInventory, 'utf8')) as InventoryFile
  const instances: InventoryFile['instances'] = {}
  for (const [name, entry] of Object.entries(source.instances)) {
    const served = endpoints.instances.includes(name)
    instances[name] = {
      ...entry,
      logs: (entry.logs ?? []).map(absolute),
      ...(entry.spoolDir ? { spoolDir: absolute(entry.spoolDir) } : {}),
      ...(served
        ? { metricsUrl: `${endpoints.base}/${name}/metrics`, healthUrl: `${endpoints.base}/${name}/health` }
        : {}),
    }
  }
  const inventory: InventoryFile = { roots: (source.roots ?? [examples]).map(absolute), instances }
  writeFileSync(file, `${JSON.stringify(inventory, null, 2)}\n`, { mode: 0o600 })
}
