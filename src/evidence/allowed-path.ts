import { realpathSync } from 'node:fs'
import { sep } from 'node:path'

const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)

/**
 * D15: a configured file or folder is read only when it, and what its symlinks resolve
 * to, lie under one of the allowed roots. Returns the real path, or the reason for refusal.
 */
export function allowedPath(path: string, roots: readonly string[]): { path: string } | { refused: string } {
  if (!roots.some((root) => within(path, root))) return { refused: 'outside the allowed roots' }
  let real: string
  try {
    real = realpathSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return { refused: code === 'ENOENT' ? 'missing' : `unreadable (${code ?? 'error'})` }
  }
  const realRoots = roots.map((root) => {
    try {
      return realpathSync(root)
    } catch {
      return root
    }
  })
  if (!realRoots.some((root) => within(real, root))) return { refused: 'a symlink leading outside the allowed roots' }
  return { path: real }
}
