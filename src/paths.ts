import { existsSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

// The same code runs from src/ (tests) and from dist/src/ (npm start); both find the
// package root by walking up to package.json, so schemas/, templates/ and migrations
// resolve identically.
function findPackageRoot(start: string): string {
  let dir = start
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('package.json not found above the running module')
    dir = parent
  }
  return dir
}

export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)))
export const schemasDir = join(packageRoot, 'schemas')
export const migrationsDir = join(packageRoot, 'src', 'store', 'sqlite', 'migrations')
export const postgresMigrationsDir = join(packageRoot, 'src', 'store', 'postgres', 'migrations')

/**
 * The script that starts the service with its memory settings (docs/operations.md,
 * "Memory"): `npm start`, the systemd unit, the benchmarks and the tests' services.
 */
export const startScript = join(packageRoot, 'bin', 'diagnostic-service')
/** The environment's PATH with this process's node first: the start script runs `node`. */
export const pathWithThisNode = (path = process.env.PATH) =>
  [dirname(process.execPath), path].filter(Boolean).join(delimiter)
