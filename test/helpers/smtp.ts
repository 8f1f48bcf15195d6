import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { type MailVariables, parseMailSettings, type SmtpSettings } from '../../src/config/mail-settings.js'
import { createCertificateAuthority, issueServerCertificate } from '../../src/tls/certificate-authority.js'
import { subjectNames } from '../../src/tls/subject-names.js'

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
  /** Over TLS or not, and the user that logged in: set when a server received it. */
  session?: { secure: boolean; user: string | undefined }
}

/** A relay's certificate for 127.0.0.1 and localhost, and a new CA of the test's that signed it. */
export async function relayCertificate(): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const ca = await createCertificateAuthority('CN=Test Relay CA')
  return { caPem: ca.certPem, ...(await issueServerCertificate(ca, subjectNames(['localhost', '127.0.0.1']))) }
}

export interface SmtpOptions {
  /** Answer every recipient with this code. */
  reject?: number
  /** Keep every message unanswered (after its data arrived) until `release()`. */
  hold?: boolean
  /** Speak TLS with this certificate: STARTTLS offered on smtp://, or implicit (smtps://). */
  tls?: { certPem: string; keyPem: string; implicit?: boolean }
  /** Require SMTP AUTH (offered only after TLS, as relays do) with these credentials. */
  auth?: { user: string; pass: string }
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

/** A real SMTP server in this process (smtp-server), with TLS and AUTH as a relay has them. */
export async function startSmtp(options: SmtpOptions = {}) {
  const mails: ReceivedMail[] = []
  /** Every AUTH attempt, and every MAIL FROM (whether over TLS): what a client sent and how. */
  const logins: Array<{ user: string; accepted: boolean; secure: boolean }> = []
  const mailFroms: Array<{ secure: boolean }> = []
  let arrived = 0
  let release = () => {}
  const gate = options.hold ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()
  const { tls, auth } = options
  const server = new SMTPServer({
    authOptional: !auth,
    disabledCommands: tls ? [] : ['STARTTLS'],
    ...(tls ? { key: tls.keyPem, cert: tls.certPem, secure: tls.implicit === true, minVersion: 'TLSv1.2' } : {}),
    logger: false,
    onAuth(attempt, session, callback) {
      const accepted = attempt.username === auth?.user && attempt.password === auth?.pass
      logins.push({ user: attempt.username ?? '', accepted, secure: session.secure })
      if (accepted) return callback(null, { user: attempt.username })
      const error = new Error('Authentication credentials invalid') as Error & { responseCode: number }
      error.responseCode = 535
      callback(error)
    },
    onMailFrom(_address, session, callback) {
      mailFroms.push({ secure: session.secure })
      callback()
    },
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
            const user = typeof session.user === 'string' ? session.user : undefined
            mails.push({ ...mail, envelope, session: { secure: session.secure, user } })
            callback()
          }, callback)
      })
    },
  })
  // A client that dies mid-session (a replica killed while it sends) is not the server's failure.
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  const url = `${tls?.implicit ? 'smtps' : 'smtp'}://127.0.0.1:${port}`
  return {
    url,
    /** The service's settings for this server, as DIAG_SMTP_URL and these DIAG_SMTP_* would make them. */
    settings: (variables: Omit<MailVariables, 'url'> = {}): SmtpSettings => {
      const { smtp, errors } = parseMailSettings({ url, ...variables })
      if (!smtp) throw new Error(errors.join('; '))
      return smtp
    },
    mails,
    logins,
    mailFroms,
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
