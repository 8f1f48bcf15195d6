import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { fileTransport, smtpTransport } from '../../src/mail/mail-transport.js'
import type { OutgoingMail } from '../../src/mail/outgoing-mail.js'
import type { MailFailureReason } from '../../src/metrics.js'
import { parseMail, relayCertificate, startSmtp, waitFor } from '../helpers/smtp.js'

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
    const transport = smtpTransport(smtp.settings(), 'diagnostic-service@example.org')
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
    const failures: MailFailureReason[] = []
    const transport = smtpTransport(smtp.settings(), 'diagnostic-service@example.org', (reason) =>
      failures.push(reason),
    )
    cleanups.push(
      () => transport.close(),
      () => smtp.close(),
    )
    await expect(transport.send(mail())).rejects.toMatchObject({ responseCode: 550 })
    expect(smtp.mails).toHaveLength(0)
    expect(failures).toEqual(['rejected'])
  })
})

describe('smtpTransport to a relay with TLS and AUTH (docs/operations.md, "Mail (D24)")', () => {
  const login = { user: 'diag', pass: 'correct horse battery staple' }
  let tls: Awaited<ReturnType<typeof relayCertificate>>
  const caFile = join(mkdtempSync(join(tmpdir(), 'relay-ca-')), 'relay-ca.pem')
  beforeAll(async () => {
    tls = await relayCertificate()
    writeFileSync(caFile, tls.caPem)
  })

  /** A relay, the transport the service would make for it, and what the transport reported. */
  async function relay(
    options: { implicit?: boolean; starttls?: boolean; auth?: boolean },
    variables: Parameters<Awaited<ReturnType<typeof startSmtp>>['settings']>[0] = {},
  ) {
    const smtp = await startSmtp({
      ...(options.starttls === false ? {} : { tls: { ...tls, implicit: options.implicit === true } }),
      ...(options.auth ? { auth: login } : {}),
    })
    const failures: MailFailureReason[] = []
    const transport = smtpTransport(smtp.settings(variables), 'diagnostic-service@example.org', (reason) =>
      failures.push(reason),
    )
    cleanups.push(
      () => transport.close(),
      () => smtp.close(),
    )
    return { smtp, transport, failures }
  }

  const trusted = { caFile }
  const withLogin = { caFile, user: login.user, password: login.pass }

  it('sends over required STARTTLS with AUTH, the login only after TLS (the default with a login)', async () => {
    const { smtp, transport } = await relay({ auth: true }, withLogin)
    expect(smtp.settings(withLogin).startTls).toBe('required')
    await transport.send(mail())
    expect(smtp.mails.map((m) => m.session)).toEqual([{ secure: true, user: 'diag' }])
    expect(smtp.logins).toEqual([{ user: 'diag', accepted: true, secure: true }])
  })

  it('sends over opportunistic STARTTLS when the relay offers it, and in clear only when it does not', async () => {
    const offered = await relay({}, { ...trusted, startTls: 'opportunistic' })
    await offered.transport.send(mail())
    expect(offered.smtp.mails.map((m) => m.session?.secure)).toEqual([true])
    const plain = await relay({ starttls: false }, { startTls: 'opportunistic' })
    await plain.transport.send(mail())
    expect(plain.smtp.mails.map((m) => m.session?.secure)).toEqual([false])
  })

  it('sends over implicit TLS (smtps://) with AUTH', async () => {
    const { smtp, transport } = await relay({ implicit: true, auth: true }, withLogin)
    expect(smtp.url).toMatch(/^smtps:/)
    await transport.send(mail())
    expect(smtp.mails.map((m) => m.session)).toEqual([{ secure: true, user: 'diag' }])
  })

  it('sends nothing when STARTTLS is required and the relay does not start TLS; the mail is to be retried', async () => {
    const { smtp, transport, failures } = await relay({ starttls: false }, { startTls: 'required' })
    const error = await transport.send(mail()).catch((e: unknown) => e as Error & { responseCode?: number })
    expect(error?.message).toMatch(
      /^TLS with the relay 127\.0\.0\.1:\d+ failed .*nothing was sent: it did not start TLS/,
    )
    expect(error?.responseCode).toBeUndefined()
    expect(failures).toEqual(['tls'])
    expect(smtp.mailFroms).toEqual([])
  })

  it.each([
    ['required STARTTLS', {}, { startTls: 'required' }],
    ['opportunistic STARTTLS', {}, { startTls: 'opportunistic' }],
    ['smtps://', { implicit: true }, {}],
  ] as const)(
    'refuses a relay whose certificate it does not trust (%s): no login, no envelope, nothing in clear',
    async (_name, options, variables) => {
      const { smtp, transport, failures } = await relay(
        { ...options, auth: true },
        { ...variables, user: login.user, password: login.pass },
      )
      const error = await transport.send(mail()).catch((e: unknown) => e as Error & { responseCode?: number })
      expect(error?.message).toMatch(
        /^TLS with the relay .* failed \(unable to verify the first certificate\); nothing was sent: its certificate is not trusted: set DIAG_SMTP_CA/,
      )
      expect(error?.responseCode).toBeUndefined()
      expect(failures).toEqual(['tls'])
      expect([smtp.logins, smtp.mailFroms, smtp.mails]).toEqual([[], [], []])
    },
  )

  it('says the relay refused the login, never the password, and leaves the mail to be retried', async () => {
    const { smtp, transport, failures } = await relay({ auth: true }, { ...withLogin, password: 'wrong-password-1234' })
    const error = await transport.send(mail()).catch((e: unknown) => e as Error & { responseCode?: number })
    expect(error?.message).toMatch(
      /^the relay 127\.0\.0\.1:\d+ refused the login of "diag" \(535 Authentication credentials invalid\): check DIAG_SMTP_USER and its password$/,
    )
    // No 5xx on the error: the outbox retries it rather than failing the mail for good (D24).
    expect(error?.responseCode).toBeUndefined()
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('wrong-password-1234')
    expect(failures).toEqual(['auth'])
    expect(smtp.logins).toEqual([{ user: 'diag', accepted: false, secure: true }])
    expect(smtp.mails).toEqual([])
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
