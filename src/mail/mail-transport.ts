import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import type { SmtpSettings } from '../config/mail-settings.js'
import type { MailFailureReason } from '../metrics.js'
import { composeMessage, messageOptions } from './mime-message.js'
import type { OutgoingMail } from './outgoing-mail.js'
import { relayFailure } from './relay-failure.js'

export interface MailTransport {
  /** Delivers or throws; an error with `responseCode` >= 500 is permanent (D24). */
  send(mail: OutgoingMail): Promise<void>
  close(): void
  /** Removes what it kept of these events' mails, if it keeps anything (retention). */
  forget?(eventIds: readonly string[]): void
  readonly description: string
}

const mailKinds = ['diagnosis', 'refire', 'recovery'] as const

/**
 * SMTP through nodemailer's pool, which never retries on its own (maxRequeues 0, tight
 * timeouts): the outbox sender owns every retry (D24). TLS as the settings say
 * (docs/operations.md, "Mail (D24)"): implicit for smtps://, STARTTLS
 * required or opportunistic for smtp://, the relay's certificate always verified (against
 * DIAG_SMTP_CA when set); a relay that is not trusted gets nothing, not even the envelope.
 */
export function smtpTransport(
  settings: SmtpSettings,
  from: string,
  onFailure: (reason: MailFailureReason) => void = () => {},
): MailTransport {
  const { host, port, secure, startTls, ca, auth } = settings
  const transporter = nodemailer.createTransport({
    host,
    ...(port === undefined ? {} : { port }),
    secure,
    requireTLS: !secure && startTls === 'required',
    tls: { rejectUnauthorized: true, ...(ca ? { ca: ca.pem } : {}) },
    ...(auth ? { auth: { user: auth.user, pass: auth.pass } } : {}),
    pool: true,
    maxConnections: 4,
    maxRequeues: 0,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[0])
  return {
    description: `SMTP ${settings.address}`,
    send: async (mail) => {
      try {
        await transporter.sendMail(messageOptions(from, mail, 'base64'))
      } catch (error) {
        const failure = relayFailure(error, settings)
        onFailure(failure.reason)
        throw failure.error
      }
    },
    close: () => transporter.close(),
  }
}

/**
 * D3: with no DIAG_SMTP_URL each e-mail is written as an .eml file to `dir` (written to a
 * temporary name, then renamed, so a reader never sees half a message).
 */
export function fileTransport(dir: string, from: string): MailTransport {
  return {
    description: `file outbox ${dir}`,
    send: async (mail) => {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      // Unix newlines and unencoded bodies where they can be: readable with a pager.
      const message = await composeMessage(from, mail, { encoding: 'readable', newline: '\n' })
      const name = `${mail.eventId}-${mail.kind}.eml`
      const temporary = join(dir, `.${name}.tmp`)
      writeFileSync(temporary, message, { mode: 0o600 })
      renameSync(temporary, join(dir, name))
    },
    // The outbox folder is pruned with the incidents its files belong to.
    forget: (eventIds) => {
      for (const id of eventIds) for (const kind of mailKinds) rmSync(join(dir, `${id}-${kind}.eml`), { force: true })
    },
    close: () => {},
  }
}
