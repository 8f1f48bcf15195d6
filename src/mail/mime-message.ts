import nodemailer from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer'
import type { OutgoingMail } from './outgoing-mail.js'

/**
 * `base64` for SMTP: every byte of a body arrives as it was (a log line's lone CR too), and
 * no body line can be taken for a boundary, a dot or a bare CR by a server on the way.
 * `readable` for .eml files: nodemailer picks 7bit for plain short lines, else
 * quoted-printable or base64, so a pager shows most reports as they are.
 */
export type BodyEncoding = 'base64' | 'readable'

/**
 * A report as nodemailer's message options: multipart/alternative with the text and the
 * HTML part, the threading headers of D24 and ours. nodemailer composes the MIME (header
 * words, folding, body encoding, punycode for internationalized domains, a random
 * boundary) and turns a line break inside a header value into a space, so no value can
 * start a header of its own.
 */
export function messageOptions(from: string, mail: OutgoingMail, encoding: BodyEncoding, date?: Date): Mail.Options {
  const body = (content: string) =>
    encoding === 'base64'
      ? { content, contentTransferEncoding: 'base64' as const }
      : // Unencoded, a lone CR (a progress line in a log) would be dropped or taken for a
        // line break depending on the reader: it is one, as a terminal shows it.
        { content: content.replace(/\r(?!\n)/g, '\n') }
  return {
    from,
    to: mail.recipients,
    subject: mail.subject,
    text: body(mail.text),
    html: body(mail.html),
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: mail.inReplyTo } : {}),
    date: date ?? new Date(),
    headers: {
      'X-Diagnostic-Event': mail.eventId,
      // diagnosis, refire or recovery: for mail filters, and for tests of the lifecycle.
      'X-Diagnostic-Kind': mail.kind,
      'Auto-Submitted': 'auto-generated',
    },
  }
}

/** nodemailer's stream transport in buffer mode: composes, delivers nothing. */
const composers = {
  '\r\n': nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }),
  '\n': nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
}

/** The whole RFC 5322 message of a report, as nodemailer composes it. */
export async function composeMessage(
  from: string,
  mail: OutgoingMail,
  options: { encoding: BodyEncoding; newline?: '\r\n' | '\n'; date?: Date },
): Promise<Buffer> {
  const composer = composers[options.newline ?? '\r\n']
  const info = await composer.sendMail(messageOptions(from, mail, options.encoding, options.date))
  return info.message as Buffer
}
