// Faults of the host rather than of a request (docs/operations.md): a full disk, an I/O
// error, the database locked by another process, or a PostgreSQL that is down, restarting
// or failing over. They pass; a request that meets one is answered "retry later", a
// background write is retried, and nothing crashes.

const hostCodes = /^(SQLITE_FULL|SQLITE_IOERR|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_CANTOPEN|ENOSPC|EIO|EDQUOT|EROFS)/

/**
 * PostgreSQL's SQLSTATEs of that kind: class 08 (connection exception), 57P01-57P03 (an
 * administrator's shutdown, a crash, a server not yet accepting connections), 57014 (a
 * statement past DIAG_DATABASE_TIMEOUT_MS: the database did not answer in time), 53 (out of
 * disk, memory or connections), 58 (system error, I/O), 25006 (a read-only server: a
 * standby after a failover); and the socket errors of a connection that went away.
 */
const postgresCodes = /^(08...|57P0[123]|57014|53...|58...|25006|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)$/

/** node-postgres and its pool say these in words, without a code. */
const postgresMessages =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/

/** The driver or system error code of `error` or of one of its causes, when it is a host fault. */
export function hostFaultCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && (hostCodes.test(code) || postgresCodes.test(code))) return code
    const message = (e as { message?: unknown }).message
    if (typeof message === 'string' && postgresMessages.test(message)) return 'PG_CONNECTION'
  }
  return undefined
}

export const isHostFault = (error: unknown): boolean => hostFaultCode(error) !== undefined
