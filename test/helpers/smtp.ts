import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  raw: string
  headers: Record<string, string>
  /** The text/plain and text/html parts, decoded (quoted-printable or base64). */
  text: string
  html: string
  /** The raw message and its decoded parts: whatever a reader of the mail could see. */
  content: string
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

/** Headers (unfolded) and the text and HTML parts of a nodemailer multipart/alternative message. */
export function parseMail(raw: string): ReceivedMail {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/)
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  const body = rest.join('\n\n')
  const part = (type: string) => {
    const match = new RegExp(
      `Content-Type: ${type}[^\\n]*\\r?\\nContent-Transfer-Encoding: ([^\\r\\n]+)\\r?\\n\\r?\\n([\\s\\S]*?)\\r?\\n----`,
    ).exec(body)
    if (!match) return ''
    const encoded = match[2] ?? ''
    if (match[1] === 'quoted-printable') return decodeQuotedPrintable(encoded)
    return match[1] === 'base64' ? Buffer.from(encoded, 'base64').toString('utf8') : encoded
  }
  const text = part('text/plain')
  const html = part('text/html')
  return { raw, headers, text, html, content: `${raw}\n${text}\n${html}` }
}

/** A real SMTP server in this process; `reject` answers every recipient with that code. */
export async function startSmtp(options: { reject?: number } = {}) {
  const mails: ReceivedMail[] = []
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
    onData(stream, _session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8')))
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export async function waitFor<T>(
  probe: () => T | undefined | false,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
