import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  raw: string
  /** The header lines as sent, unfolded, by lower-case name. */
  headers: Record<string, string>
  /** The Subject decoded (RFC 2047), the text/plain and text/html parts decoded. */
  subject: string
  text: string
  html: string
  /** The raw message and its decoded parts: whatever a reader of the mail could see. */
  content: string
  /** The SMTP envelope (MAIL FROM, RCPT TO) it came with; empty when parsed from a file. */
  envelope: { from: string; to: string[] }
}

/** The raw headers, and the decoded parts as a real MIME parser (mailparser) reads them. */
export async function parseMail(raw: string): Promise<ReceivedMail> {
  const head = raw.slice(0, raw.search(/\r?\n\r?\n/))
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  const parsed = await simpleParser(raw)
  const text = parsed.text ?? ''
  const html = typeof parsed.html === 'string' ? parsed.html : ''
  return {
    raw,
    headers,
    subject: parsed.subject ?? '',
    text,
    html,
    content: `${raw}\n${text}\n${html}`,
    envelope: { from: '', to: [] },
  }
}

/**
 * A real SMTP server in this process; `reject` answers every recipient with that code;
 * `hold` keeps every message unanswered (after its data arrived) until `release()`.
 */
export async function startSmtp(options: { reject?: number; hold?: boolean } = {}) {
  const mails: ReceivedMail[] = []
  let arrived = 0
  let release = () => {}
  const gate = options.hold ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!options.reject) return callback()
      const error = new Error('mailbox unavailable') as Error & { responseCode: number }
      error.responseCode = options.reject
      callback(error)
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope
        const envelope = { from: mailFrom ? mailFrom.address : '', to: rcptTo.map((r) => r.address) }
        arrived++
        gate
          .then(() => parseMail(Buffer.concat(chunks).toString('utf8')))
          .then((mail) => {
            mails.push({ ...mail, envelope })
            callback()
          }, callback)
      })
    },
  })
  // A client that dies mid-session (a replica killed while it sends) is not the server's failure.
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The mails of one event (its X-Diagnostic-Event header), in the order they arrived. */
    mailsOf: (eventId: string) => mails.filter((m) => m.headers['x-diagnostic-event'] === eventId),
    /** Messages whose data arrived, answered or not. */
    arrived: () => arrived,
    release: () => release(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
