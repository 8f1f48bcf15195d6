import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import nodemailer from 'nodemailer'

export interface OutgoingMail {
  eventId: string
  kind: 'diagnosis' | 'recovery'
  messageId: string
  inReplyTo: string | null
  subject: string
  recipients: string[]
  text: string
  html: string
}

export interface MailTransport {
  /** Delivers or throws; an error with `responseCode` >= 500 is permanent (D24). */
  send(mail: OutgoingMail): Promise<void>
  close(): void
  readonly description: string
}

const message = (from: string, mail: OutgoingMail, textEncoding: 'base64' | 'quoted-printable') => ({
  from,
  textEncoding,
  to: mail.recipients,
  subject: mail.subject,
  text: mail.text,
  html: mail.html,
  messageId: mail.messageId,
  ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: [mail.inReplyTo] } : {}),
  headers: { 'X-Diagnostic-Event': mail.eventId, 'Auto-Submitted': 'auto-generated' },
})

/**
 * SMTP through nodemailer's pool, which never retries on its own (maxRequeues 0, tight
 * timeouts): the outbox sender owns every retry (D24).
 */
export function smtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: 4,
    maxRequeues: 0,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[0])
  const host = new URL(url).host
  return {
    description: `SMTP ${host}`,
    // base64 is native Buffer work; quoted-printable is encoded in JavaScript, character by
    // character, and was the largest single item of sending a report in the profile.
    send: async (mail) => {
      await transporter.sendMail(message(from, mail, 'base64'))
    },
    close: () => transporter.close(),
  }
}

/**
 * D3: with no DIAG_SMTP_URL each e-mail is written as an .eml file to `dir` (written to a
 * temporary name, then renamed, so a reader never sees half a message).
 */
export function fileTransport(dir: string, from: string): MailTransport {
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    description: `file outbox ${dir}`,
    send: async (mail) => {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      // Quoted-printable: an .eml file on disk stays readable with a pager.
      const info = (await builder.sendMail(message(from, mail, 'quoted-printable'))) as unknown as { message: Buffer }
      const name = `${mail.eventId}-${mail.kind}.eml`
      const temporary = join(dir, `.${name}.tmp`)
      writeFileSync(temporary, info.message, { mode: 0o600 })
      renameSync(temporary, join(dir, name))
    },
    close: () => builder.close(),
  }
}
