import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fileTransport, smtpTransport } from '../../src/mail/mail-transport.js'
import type { OutgoingMail } from '../../src/mail/outgoing-mail.js'
import { parseMail, startSmtp, waitFor } from '../helpers/smtp.js'

const mail = (over: Partial<OutgoingMail> = {}): OutgoingMail => ({
  eventId: '01a2028c-6451-755f-b14c-28dd78e976c0',
  kind: 'recovery',
  afterEventId: null,
  messageId: '<01a2028c-6451-755f-b14c-28dd78e976c0@diagnostic-service>',
  inReplyTo: '<01a2028c-0000-755f-b14c-28dd78e976c0@diagnostic-service>',
  subject: '[RESOLVED] AppServerHealthCheckFailing on app-01: TD-02 JavaHeapExhausted, open 12m',
  recipients: ['sre-oncall@example.org', 'ops@exämple.org'],
  text: 'RECOVERY REPORT\n.a line that starts with a dot\nGrüße\n',
  html: '<p>RECOVERY REPORT</p>\n<p>Grüße</p>\n',
  ...over,
})

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe('smtpTransport', () => {
  it('delivers the composed message with its envelope, an internationalized domain in punycode', async () => {
    const smtp = await startSmtp()
    const transport = smtpTransport(smtp.url, 'diagnostic-service@example.org')
    cleanups.push(
      () => transport.close(),
      () => smtp.close(),
    )
    await transport.send(mail())
    const [received] = await waitFor(() => smtp.mails.length > 0 && smtp.mails)
    // smtp-server hands over envelope domains decoded from punycode.
    expect(received?.envelope).toEqual({
      from: 'diagnostic-service@example.org',
      to: ['sre-oncall@example.org', 'ops@exämple.org'],
    })
    expect(received?.headers.to).toBe('sre-oncall@example.org, ops@xn--exmple-cua.org')
    expect(received?.headers['message-id']).toBe('<01a2028c-6451-755f-b14c-28dd78e976c0@diagnostic-service>')
    expect(received?.headers['in-reply-to']).toBe('<01a2028c-0000-755f-b14c-28dd78e976c0@diagnostic-service>')
    expect(received?.headers['x-diagnostic-event']).toBe('01a2028c-6451-755f-b14c-28dd78e976c0')
    // SMTP dot-stuffing was undone by the server: the line starting with a dot is intact.
    expect(received?.text).toBe('RECOVERY REPORT\n.a line that starts with a dot\nGrüße\n')
    expect(received?.html).toBe('<p>RECOVERY REPORT</p>\n<p>Grüße</p>\n')
  })

  it('fails with the server’s code on a permanent rejection, for the outbox to record (D24)', async () => {
    const smtp = await startSmtp({ reject: 550 })
    const transport = smtpTransport(smtp.url, 'diagnostic-service@example.org')
    cleanups.push(
      () => transport.close(),
      () => smtp.close(),
    )
    await expect(transport.send(mail())).rejects.toMatchObject({ responseCode: 550 })
    expect(smtp.mails).toHaveLength(0)
  })
})

describe('fileTransport (D3)', () => {
  it('writes <event>-<kind>.eml, private, readable in a pager, and no temporary file is left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    await fileTransport(dir, 'diagnostic-service@example.org').send(mail())
    expect(readdirSync(dir)).toEqual(['01a2028c-6451-755f-b14c-28dd78e976c0-recovery.eml'])
    const file = join(dir, '01a2028c-6451-755f-b14c-28dd78e976c0-recovery.eml')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const raw = readFileSync(file, 'utf8')
    expect(raw).not.toContain('\r')
    expect(raw).toContain('Content-Transfer-Encoding: quoted-printable')
    expect(raw).toContain('RECOVERY REPORT\n.a line that starts with a dot\nGr=C3=BC=C3=9Fe\n')
    const parsed = await parseMail(raw)
    expect(parsed.subject).toBe(mail().subject)
    expect(parsed.text).toBe(mail().text)
  })
})
