import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
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
