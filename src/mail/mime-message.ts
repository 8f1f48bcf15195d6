import { domainToASCII } from 'node:url'
import { encodeWords, foldLines } from 'nodemailer/lib/mime-funcs'
import { encode as encodeQuotedPrintable, wrap as wrapQuotedPrintable } from 'nodemailer/lib/qp'
import type { OutgoingMail } from './outgoing-mail.js'

export type BodyEncoding = 'base64' | 'quoted-printable'

/** RFC 2045's line length for encoded bodies, and nodemailer's for folded headers. */
const lineLength = 76

/**
 * The whole RFC 5322 message of a report, built in one go: multipart/alternative with the
 * text and the HTML part. nodemailer's own composer streams every part through a chain of
 * transforms, which cost about as much CPU again as delivering the message over SMTP
 * (docs/performance.md); here the bodies are encoded natively (base64) or with nodemailer's
 * encoder (quoted-printable, for .eml files a pager can read), and the headers with
 * nodemailer's own word encoding and folding. The SMTP transport hands the result to
 * nodemailer as a raw message.
 */
export function composeMessage(
  from: string,
  mail: OutgoingMail,
  options: { encoding: BodyEncoding; newline?: '\r\n' | '\n'; date?: Date },
): Buffer {
  const eol = options.newline ?? '\r\n'
  // "=_" never occurs in base64 or quoted-printable output, so no body line can be mistaken
  // for the boundary, whatever follows; the event id makes it the same on a re-send.
  const boundary = `=_diag_${mail.eventId.replace(/[^0-9A-Za-z]/g, '')}`
  const headers: Array<[string, string]> = [
    ['From', address(from)],
    ['To', mail.recipients.map(address).join(', ')],
    ['Subject', encodeWords(mail.subject, 'Q', 52)],
    ['Message-ID', mail.messageId],
  ]
  if (mail.inReplyTo) headers.push(['In-Reply-To', mail.inReplyTo], ['References', mail.inReplyTo])
  headers.push(
    ['Date', (options.date ?? new Date()).toUTCString().replace('GMT', '+0000')],
    ['MIME-Version', '1.0'],
    ['X-Diagnostic-Event', mail.eventId],
    // diagnosis, refire or recovery: for mail filters, and for tests of the lifecycle.
    ['X-Diagnostic-Kind', mail.kind],
    ['Auto-Submitted', 'auto-generated'],
    ['Content-Type', `multipart/alternative; boundary="${boundary}"`],
  )
  const part = (type: string, body: string) =>
    `--${boundary}${eol}Content-Type: ${type}; charset=utf-8${eol}Content-Transfer-Encoding: ${options.encoding}${eol}${eol}${encodeBody(body, options.encoding, eol)}${eol}`
  const head = headers.map((header) => headerLine(header, eol)).join('')
  return Buffer.from(
    `${head}${eol}${part('text/plain', mail.text)}${part('text/html', mail.html)}--${boundary}--${eol}`,
  )
}

/** One folded header line. A value can never end the header: CR and LF are refused (D23). */
function headerLine([name, value]: [string, string], eol: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`the ${name} header holds a line break`)
  return `${foldLines(`${name}: ${value}`, lineLength).replace(/\r\n/g, eol)}${eol}`
}

/** An address as the envelope and the header carry it: an internationalized domain in punycode. */
export function address(value: string): string {
  const at = value.lastIndexOf('@')
  const domain = value.slice(at + 1)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for non-ASCII
  return at > 0 && /[^\x00-\x7f]/.test(domain) ? `${value.slice(0, at)}@${domainToASCII(domain)}` : value
}

function encodeBody(text: string, encoding: BodyEncoding, eol: string): string {
  if (encoding === 'quoted-printable') {
    // The encoder keeps a lone CR as it is; encoded, it cannot pass for a line break.
    const encoded = encodeQuotedPrintable(text).replace(/\r(?!\n)/g, '=0D')
    return wrapQuotedPrintable(encoded, lineLength).replace(/\r?\n/g, eol)
  }
  const base64 = Buffer.from(text, 'utf8').toString('base64')
  const lines: string[] = []
  for (let at = 0; at < base64.length; at += lineLength) lines.push(base64.slice(at, at + lineLength))
  return lines.join(eol)
}
