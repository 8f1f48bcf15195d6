import { simpleParser } from 'mailparser'
import { describe, expect, it } from 'vitest'
import { type BodyEncoding, composeMessage } from '../../src/mail/mime-message.js'
import type { OutgoingMail } from '../../src/mail/outgoing-mail.js'
import { headerValue } from '../../src/report/headers.js'
import { random } from '../helpers/random.js'

const mail = (over: Partial<OutgoingMail> = {}): OutgoingMail => ({
  eventId: '01a2028c-6451-755f-b14c-28dd78e976c0',
  kind: 'diagnosis',
  afterEventId: null,
  messageId: '<01a2028c-6451-755f-b14c-28dd78e976c0@diagnostic-service>',
  inReplyTo: null,
  subject: '[critical] AppServerHealthCheckFailing on app-01: TD-02 JavaHeapExhausted (jvm_memory)',
  recipients: ['sre-oncall@example.org'],
  text: 'DIAGNOSIS REPORT\n',
  html: '<p>DIAGNOSIS REPORT</p>\n',
  ...over,
})

// Pieces a report body or subject can hold: log lines with dots and dashes at the start
// (SMTP dot-stuffing, MIME boundaries), both newlines, tabs, non-ASCII of every UTF-8
// length. A lone CR has its own test: parsers differ on it.
const pieces = ['.', '..', '--', '--=_diag_', '=', '=3D', '\r\n', '\n', '\t', ' ', 'é', 'ü', '€', '🚀', 'a', 'Z']
const noise = (next: () => number, length: number) =>
  Array.from({ length }, () => pieces[Math.floor(next() * pieces.length)]).join('')
const lines = (text: string) => text.replace(/\r\n/g, '\n')

function headerBlock(message: Buffer): string[] {
  const text = message.toString('utf8')
  return text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n')
}

describe('composeMessage', () => {
  it.each<BodyEncoding>(['base64', 'readable'])(
    'round-trips subject and both parts through a real MIME parser (%s)',
    async (encoding) => {
      const next = random(2026)
      for (let n = 0; n < 60; n++) {
        // As the worker makes every subject: control characters gone, spaces collapsed.
        const subject = headerValue(`[critical] ${noise(next, 40)}`)
        const text = noise(next, Math.floor(next() * 3000))
        const html = `<pre>${noise(next, Math.floor(next() * 3000))}</pre>`
        const parsed = await simpleParser(
          await composeMessage('diag@example.org', mail({ subject, text, html }), { encoding }),
        )
        expect(parsed.subject).toBe(subject)
        expect(lines(parsed.text ?? '')).toBe(lines(text))
        expect(lines(String(parsed.html))).toBe(lines(html))
      }
    },
  )

  it('writes the headers of D23 and D24, each line within 78 characters', async () => {
    const message = await composeMessage(
      'diag@example.org',
      mail({ kind: 'recovery', inReplyTo: '<first@diagnostic-service>', subject: `[RESOLVED] ${'ü'.repeat(200)}` }),
      { encoding: 'base64', date: new Date(Date.UTC(2026, 10, 22, 9, 30)) },
    )
    const head = headerBlock(message)
    for (const line of head) expect(line.length).toBeLessThanOrEqual(78)
    const unfolded = head.join('\r\n').replace(/\r\n[ \t]/g, ' ')
    expect(unfolded).toContain('Message-ID: <01a2028c-6451-755f-b14c-28dd78e976c0@diagnostic-service>')
    expect(unfolded).toContain('In-Reply-To: <first@diagnostic-service>')
    expect(unfolded).toContain('References: <first@diagnostic-service>')
    expect(unfolded).toContain('Date: Sun, 22 Nov 2026 09:30:00 +0000')
    expect(unfolded).toContain('X-Diagnostic-Event: 01a2028c-6451-755f-b14c-28dd78e976c0')
    expect(unfolded).toContain('Auto-Submitted: auto-generated')
    expect(unfolded).toMatch(/Content-Type: multipart\/alternative; boundary="--_NmP-[0-9a-f]{16}-Part_1"/)
  })

  it.each<BodyEncoding>(['base64', 'readable'])(
    'keeps a body that holds a boundary line of another message intact (%s)',
    async (encoding) => {
      // The boundary is random: a log line cannot know the one of the report it will be in.
      const other = (await composeMessage('diag@example.org', mail(), { encoding })).toString('utf8')
      const boundary = /boundary="([^"]+)"/.exec(other)?.[1]
      const text = `before\n--${boundary}\nafter\n--${boundary}--\n`
      const parsed = await simpleParser(await composeMessage('diag@example.org', mail({ text }), { encoding }))
      expect(parsed.text).toBe(text)
      expect(lines(String(parsed.html))).toBe(mail().html)
    },
  )

  it('never lets a line break in a header value start a header of its own', async () => {
    const message = await composeMessage('diag@example.org', mail({ subject: 'x\r\nBcc: attacker@example.org' }), {
      encoding: 'base64',
    })
    expect(headerBlock(message).some((line) => /^bcc:/i.test(line))).toBe(false)
    const parsed = await simpleParser(message)
    expect(parsed.bcc).toBeUndefined()
    expect(parsed.subject).toBe('x Bcc: attacker@example.org')
  })

  it('writes an internationalized domain in punycode, the local part as it is', async () => {
    const parsed = await simpleParser(
      await composeMessage('diag@example.org', mail({ recipients: ['sre@exämple.org', 'ops@example.org'] }), {
        encoding: 'base64',
      }),
    )
    expect(
      headerBlock(
        await composeMessage('diag@example.org', mail({ recipients: ['sre@exämple.org'] }), { encoding: 'base64' }),
      ),
    ).toContain('To: sre@xn--exmple-cua.org')
    const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to
    expect(to?.value.map((a) => a.address)).toEqual(['sre@exämple.org', 'ops@example.org'])
  })

  it('never writes a bare CR: base64 keeps a lone CR exactly, a readable body makes it a line break', async () => {
    const text = 'progress 10%\rprogress 20%\r\n'
    for (const [encoding, decoded] of [
      ['base64', text],
      ['readable', 'progress 10%\nprogress 20%\n'],
    ] as const) {
      for (const newline of ['\r\n', '\n'] as const) {
        const message = await composeMessage('diag@example.org', mail({ text }), { encoding, newline })
        expect(message.toString('utf8').replace(/\r\n/g, '')).not.toContain('\r')
        expect(lines((await simpleParser(message)).text ?? '')).toBe(lines(decoded))
      }
    }
  })

  it('writes a short plain report unencoded with Unix newlines, a long line encoded within 78 characters', async () => {
    const plain = (
      await composeMessage('diag@example.org', mail({ text: 'DIAGNOSIS REPORT\n1. SUMMARY\n' }), {
        encoding: 'readable',
        newline: '\n',
      })
    ).toString('utf8')
    expect(plain).toContain('Content-Transfer-Encoding: 7bit\n\nDIAGNOSIS REPORT\n1. SUMMARY\n')
    const long = (
      await composeMessage('diag@example.org', mail({ text: 'x'.repeat(500) }), { encoding: 'readable', newline: '\n' })
    ).toString('utf8')
    expect(long).not.toContain('\r')
    for (const line of long.split('\n')) expect(line.length).toBeLessThanOrEqual(78)
  })
})
