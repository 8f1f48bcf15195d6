import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs'

/** A path that is not a regular file: the reason becomes an evidence gap. */
export class NotRegularFileError extends Error {
  constructor(readonly kind: string) {
    super(`not a regular file (${kind})`)
    this.name = 'NotRegularFileError'
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory'
  if (stats.isFIFO()) return 'a FIFO'
  if (stats.isSocket()) return 'a socket'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  return 'not a file'
}

/**
 * Opens an evidence file for reading only if it is a regular file. O_NONBLOCK: opening a
 * FIFO would otherwise wait for a writer, forever; O_NOFOLLOW: the path was resolved and
 * checked against the allowed roots (allowed-path.ts), so a symlink put there since is
 * refused instead of followed. The descriptor is checked with fstat, so what is read is
 * what was checked. Returns the descriptor and its size; the caller closes it.
 */
export function openRegularFile(path: string): { fd: number; size: number } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) throw new NotRegularFileError(kindOf(stats))
    return { fd, size: stats.size }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** The reason a read failed, as an evidence gap says it. */
export function unreadableReason(error: unknown): string {
  if (error instanceof NotRegularFileError) return error.message
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ELOOP' ? 'a symlink appeared after the path was checked' : `unreadable (${code ?? 'error'})`
}
