// Faults of the host rather than of a request (docs/operations.md): a full disk, an I/O
// error, or the database locked by another process. They pass; a request that meets one is
// answered "retry later", a background write is retried, and nothing crashes.

const hostCodes = /^(SQLITE_FULL|SQLITE_IOERR|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_CANTOPEN|ENOSPC|EIO|EDQUOT|EROFS)/

/** The driver or system error code of `error` or of one of its causes, when it is a host fault. */
export function hostFaultCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && hostCodes.test(code)) return code
  }
  return undefined
}

export const isHostFault = (error: unknown): boolean => hostFaultCode(error) !== undefined
