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
  it.each<BodyEncoding>(['base64', 'quoted-printable'])(
    'round-trips subject and both parts through a real MIME parser (%s)',
    async (encoding) => {
      const next = random(2026)
      for (let n = 0; n < 60; n++) {
        // As the worker makes every subject: control characters gone, spaces collapsed.
        const subject = headerValue(`[critical] ${noise(next, 40)}`)
        const text = noise(next, Math.floor(next() * 3000))
        const html = `<pre>${noise(next, Math.floor(next() * 3000))}</pre>`
        const parsed = await simpleParser(
          composeMessage('diag@example.org', mail({ subject, text, html }), { encoding }),
        )
        expect(parsed.subject).toBe(subject)
        expect(lines(parsed.text ?? '')).toBe(lines(text))
        expect(lines(String(parsed.html))).toBe(lines(html))
      }
    },
  )

  it('writes the headers of D23 and D24, each line within 78 characters', () => {
    const message = composeMessage(
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
    expect(unfolded).toContain(
      'Content-Type: multipart/alternative; boundary="=_diag_01a2028c6451755fb14c28dd78e976c0"',
    )
  })

  it.each<BodyEncoding>(['base64', 'quoted-printable'])(
    'keeps a body that holds its own boundary line intact (%s)',
    async (encoding) => {
      const text =
        'before\n--=_diag_01a2028c6451755fb14c28dd78e976c0\nafter\n--=_diag_01a2028c6451755fb14c28dd78e976c0--\n'
      const parsed = await simpleParser(composeMessage('diag@example.org', mail({ text }), { encoding }))
      expect(parsed.text).toBe(text)
      expect(lines(String(parsed.html))).toBe(mail().html)
    },
  )

  it('refuses a header value with a line break instead of letting it start a header', () => {
    expect(() =>
      composeMessage('diag@example.org', mail({ subject: 'x\r\nBcc: attacker@example.org' }), { encoding: 'base64' }),
    ).toThrow('the Subject header holds a line break')
  })

  it('writes an internationalized domain in punycode, the local part as it is', async () => {
    const parsed = await simpleParser(
      composeMessage('diag@example.org', mail({ recipients: ['sre@exämple.org', 'ops@example.org'] }), {
        encoding: 'base64',
      }),
    )
    expect(
      headerBlock(
        composeMessage('diag@example.org', mail({ recipients: ['sre@exämple.org'] }), { encoding: 'base64' }),
      ),
    ).toContain('To: sre@xn--exmple-cua.org')
    const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to
    expect(to?.value.map((a) => a.address)).toEqual(['sre@exämple.org', 'ops@example.org'])
  })

  it('encodes a lone CR in quoted-printable, so that it cannot pass for a line break', () => {
    const text = composeMessage('diag@example.org', mail({ text: 'progress 10%\rprogress 20%\r\n' }), {
      encoding: 'quoted-printable',
    }).toString('utf8')
    expect(text).toContain('progress 10%=0Dprogress 20%\r\n')
    expect(text.replace(/\r\n/g, '')).not.toContain('\r')
  })

  it('keeps quoted-printable lines within 76 characters and Unix newlines when asked', () => {
    const text = composeMessage('diag@example.org', mail({ text: 'x'.repeat(500) }), {
      encoding: 'quoted-printable',
      newline: '\n',
    }).toString('utf8')
    expect(text).not.toContain('\r')
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(78)
  })
})
