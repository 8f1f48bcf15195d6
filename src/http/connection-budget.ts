import { readFileSync } from 'node:fs'
import { ConfigError } from '../config/load.js'
import type { ConnectionLimits } from './connection-guard.js'

// How many client connections the process may hold (docs/operations.md, "Connections and
// file descriptors"). Every connection is a descriptor; so are the process's own files.
// Running out of descriptors fails everything at once (accept, the database, log reads,
// the mail), so connections stop at the soft open-files limit less a reserve.

/** Descriptors kept for the process itself at any worker concurrency (see descriptorReserve). */
export const fixedReserve = 256

/**
 * What the process needs besides client connections: 256 for its own files (SQLite's
 * database, -wal, -shm and journal; stdio; libuv's epoll, event and signal descriptors; the
 * analysis threads' ports; SMTP connections; the log and spool files an analysis reads,
 * at most 48 per analysis thread), and 2 per event the worker has in flight (its metrics
 * and health-probe connections).
 */
export const descriptorReserve = (workerConcurrency: number) => fixedReserve + 2 * workerConcurrency

/** The soft limit "Max open files" of /proc/self/limits; null where it cannot be read. */
export function readOpenFilesLimit(read = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  let text: string
  try {
    text = read()
  } catch {
    return null
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1]
  if (soft === undefined) return null
  return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft)
}

/** Fewer than this after the reserve is a host set up too tightly to serve. */
const leastConnections = 32
/** Where the limit cannot be read (not Linux) and DIAG_MAX_CONNECTIONS is not set. */
const fallbackConnections = 1024

/**
 * The connection limits with `maxConnections` decided: DIAG_MAX_CONNECTIONS when set (it
 * must fit under the open-files limit less the reserve), otherwise that difference.
 * Throws a ConfigError (exit 78) when the numbers do not fit.
 */
export function connectionBudget(
  configured: ConnectionLimits,
  options: { openFiles: number | null; workerConcurrency: number },
): ConnectionLimits & { reserve: number; openFiles: number | null } {
  const reserve = descriptorReserve(options.workerConcurrency)
  const room = options.openFiles === null ? null : options.openFiles - reserve
  const explicit = configured.maxConnections > 0
  if (room !== null && room < (explicit ? configured.maxConnections : leastConnections)) {
    const want = explicit ? `DIAG_MAX_CONNECTIONS=${configured.maxConnections}` : `${leastConnections} connections`
    throw new ConfigError([
      `DIAG_MAX_CONNECTIONS: the open-files limit (${options.openFiles}) less the reserve of ${reserve} descriptors ` +
        `(256 + 2 x DIAG_WORKER_CONCURRENCY) leaves ${room}, fewer than ${want}: raise LimitNOFILE (ulimit -n) or lower it`,
    ])
  }
  const maxConnections = explicit ? configured.maxConnections : Math.min(room ?? fallbackConnections, 1_000_000)
  if (configured.webhookReservedConnections >= maxConnections) {
    throw new ConfigError([
      `DIAG_WEBHOOK_RESERVED_CONNECTIONS must be below the connection bound (${maxConnections}); got ${configured.webhookReservedConnections}`,
    ])
  }
  return { ...configured, maxConnections, reserve, openFiles: options.openFiles }
}
