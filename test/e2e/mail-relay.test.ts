import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { request } from '../helpers/https-client.js'
import { loopbackEnv, type ServiceProcess, spawnService } from '../helpers/service-process.js'
import { relayCertificate, startSmtp, waitFor } from '../helpers/smtp.js'

const token = 'relay-token-0000000001'
const login = { user: 'diag', pass: 'correct-password-1234' }
const wrongPassword = 'wrong-password-5678'

const running: ServiceProcess[] = []
afterEach(() => {
  for (const service of running.splice(0)) service.child.kill('SIGKILL')
})

describe('mail through a relay with STARTTLS and AUTH (docs/operations.md, "Mail (D24)")', () => {
  it('keeps a mail while the relay is not trusted, then while it refuses the login, and sends it once both are fixed', async () => {
    const tls = await relayCertificate()
    const relay = await startSmtp({ tls, auth: login })
    const cwd = mkdtempSync(join(tmpdir(), 'diag-relay-'))
    const caFile = join(cwd, 'relay-ca.pem')
    const passwordFile = join(cwd, 'smtp-password')
    writeFileSync(caFile, tls.caPem)
    const env = {
      DIAG_SMTP_URL: relay.url,
      DIAG_SMTP_USER: login.user,
      DIAG_SMTP_PASSWORD_FILE: passwordFile,
      DIAG_MAIL_RETRY_BASE_MS: '50',
      DIAG_MAIL_MAX_ATTEMPTS: '50',
    }
    const start = async (extra: Record<string, string> = {}) => {
      const service = spawnService(loopbackEnv(token, { ...env, ...extra }), cwd)
      running.push(service)
      const url = await service.ready
      const ca = readFileSync(join(cwd, 'data', 'tls', 'ca.pem'))
      const failures = async (reason: string) => {
        const text = (await request(`${url}/metrics`, { ca })).text
        return Number(
          new RegExp(`^diagnostic_mail_failures_total\\{reason="${reason}"\\} (\\S+)$`, 'm').exec(text)?.[1],
        )
      }
      return { service, url, ca, failures }
    }
    /** The service's warnings whose text says this, once there are `count` of them (retried). */
    const warnings = (service: ServiceProcess, text: string, count: number) =>
      waitFor(
        () => {
          const lines = service.logLines().filter((line) => line.level === 40 && JSON.stringify(line).includes(text))
          return lines.length >= count && lines
        },
        20_000,
        `${count} warnings saying ${text}`,
      )
    const stop = async (service: ServiceProcess) => {
      service.child.kill('SIGTERM')
      expect(await service.exited).toEqual({ code: 0, signal: null })
    }

    // 1. The relay's certificate is not trusted (no DIAG_SMTP_CA): no login, no envelope, retried.
    writeFileSync(passwordFile, `${login.pass}\n`)
    const first = await start()
    const accepted = await request(`${first.url}/api/v1/alerts/alertmanager`, {
      method: 'POST',
      ca: first.ca,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(webhook([alert({ id: 'relay001' })])),
    })
    expect(accepted.status).toBe(202)
    await warnings(first.service, 'its certificate is not trusted: set DIAG_SMTP_CA', 2)
    expect(await first.failures('tls')).toBeGreaterThanOrEqual(2)
    expect([relay.logins, relay.mailFroms, relay.mails]).toEqual([[], [], []])
    await stop(first.service)

    // 2. Trusted, but the password is wrong: one clear line per attempt, counted, the mail kept.
    writeFileSync(passwordFile, `${wrongPassword}\n`)
    const second = await start({ DIAG_SMTP_CA: caFile })
    await warnings(second.service, `refused the login of \\"diag\\" (535 Authentication credentials invalid)`, 2)
    expect(await second.failures('auth')).toBeGreaterThanOrEqual(2)
    expect(relay.logins.length).toBeGreaterThanOrEqual(2)
    expect(relay.logins.every((l) => l.user === 'diag' && !l.accepted && l.secure)).toBe(true)
    expect(relay.mails).toEqual([])
    expect(second.service.stdout()).not.toContain(wrongPassword)
    await stop(second.service)

    // 3. The right password: the kept mail goes, over TLS, logged in, once.
    writeFileSync(passwordFile, `${login.pass}\n`)
    const third = await start({ DIAG_SMTP_CA: caFile })
    const [mail] = await waitFor(() => relay.mails.length > 0 && relay.mails, 20_000, 'the kept mail')
    expect(mail?.session).toEqual({ secure: true, user: 'diag' })
    await stop(third.service)
    expect(relay.mails).toHaveLength(1)
    const db = new Database(join(cwd, 'data', 'diagnostic.db'), { readonly: true })
    const rows = db.prepare('SELECT status, attempts FROM outbox').all() as Array<{ status: string; attempts: number }>
    db.close()
    expect(rows).toHaveLength(1)
    expect(rows[0]?.status).toBe('sent')
    expect(rows[0]?.attempts).toBeGreaterThanOrEqual(5)
    for (const service of [first, second, third]) expect(service.service.stdout()).not.toContain(login.pass)
    await relay.close()
  }, 120_000)
})
