import type { SmtpSettings } from '../config/mail-settings.js'
import type { MailFailureReason } from '../metrics.js'

/** What nodemailer's errors carry (code, the relay's answer, the socket's own code). */
interface SmtpError {
  message?: string
  code?: string
  originalCode?: string
  responseCode?: number
  response?: string
  reason?: string
}

// 530 authentication required, 534 mechanism too weak, 535 credentials invalid, 538
// encryption required for it (RFC 4954).
const loginCodes = new Set([530, 534, 535, 538])
const certificateCode = /CERT|SELF_SIGNED|UNABLE_TO_|HOSTNAME|ALTNAME/
const tlsCode = /^ERR_(SSL|TLS)_/
const connectionCodes = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET'])

/** STARTTLS refused or missing, or a relay that answers "530 Must issue a STARTTLS command first". */
const noStartTls = (error: SmtpError) => error.code === 'ETLS' || /STARTTLS/i.test(error.response ?? '')

function reasonOf(error: SmtpError): MailFailureReason {
  const code = error.code ?? ''
  const socketCode = error.originalCode ?? ''
  if (noStartTls(error) || certificateCode.test(socketCode) || tlsCode.test(socketCode)) return 'tls'
  if (code === 'EAUTH' || loginCodes.has(error.responseCode ?? 0)) return 'auth'
  if (connectionCodes.has(code)) return 'connection'
  if ((error.responseCode ?? 0) >= 500) return 'rejected'
  if ((error.responseCode ?? 0) >= 400) return 'deferred'
  return 'other'
}

function tlsHint(error: SmtpError): string {
  if (noStartTls(error))
    return 'it did not start TLS, which DIAG_SMTP_STARTTLS=required (the default with a login) needs'
  if (certificateCode.test(error.originalCode ?? '')) {
    return 'its certificate is not trusted: set DIAG_SMTP_CA to the CA that signed it, and name the relay in DIAG_SMTP_URL as its certificate does'
  }
  return 'smtps:// needs a port that speaks TLS from the first byte (465); smtp:// with STARTTLS uses 587 or 25'
}

/**
 * Why the relay did not take a mail, and the error for the outbox to log and act on. A
 * refused login or a relay that cannot be trusted is a matter of configuration, not of
 * this mail: the error says what to fix, and carries no SMTP code, so that the outbox
 * keeps the mail and retries it (D24) instead of failing it for good on the 5xx. Never the
 * password: only the relay's answer and the user name.
 */
export function relayFailure(error: unknown, settings: SmtpSettings): { reason: MailFailureReason; error: unknown } {
  const smtp = (error ?? {}) as SmtpError
  const reason = reasonOf(smtp)
  const answer = smtp.response ?? smtp.reason ?? smtp.message ?? String(error)
  const relay = `the relay ${settings.address}`
  const message =
    reason === 'auth'
      ? settings.auth
        ? `${relay} refused the login of "${settings.auth.user}" (${answer}): check DIAG_SMTP_USER and its password`
        : `${relay} wants a login (${answer}): set DIAG_SMTP_USER and DIAG_SMTP_PASSWORD_FILE`
      : reason === 'tls'
        ? `TLS with ${relay} failed (${answer}); nothing was sent: ${tlsHint(smtp)}`
        : undefined
  if (message === undefined) return { reason, error }
  // The relay's code stays readable as relayResponseCode, out of the outbox's way.
  return { reason, error: Object.assign(new Error(message), { code: smtp.code, relayResponseCode: smtp.responseCode }) }
}
