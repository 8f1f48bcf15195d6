import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { relayCertificate } from '../helpers/smtp.js'

const dir = mkdtempSync(join(tmpdir(), 'mail-config-'))
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

function errorLines(env: Record<string, string>): string[] {
  try {
    loadConfig(env, dir)
  } catch (error) {
    if (error instanceof ConfigError) return error.lines
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('the relay settings (DIAG_SMTP_*, docs/operations.md "Mail (D24)")', () => {
  let caFile: string
  beforeAll(async () => {
    caFile = file('relay-ca.pem', (await relayCertificate()).caPem)
  })

  it('takes a relay without a login: STARTTLS opportunistic, the port nodemailer defaults to', () => {
    expect(loadConfig({ DIAG_SMTP_URL: 'smtp://mail.example.org' }, dir).smtp).toEqual({
      host: 'mail.example.org',
      secure: false,
      startTls: 'opportunistic',
      address: 'mail.example.org:587',
    })
  })

  it('takes a login with its password from a file (its last newline dropped): STARTTLS is then required', () => {
    const smtp = loadConfig(
      {
        DIAG_SMTP_URL: 'smtp://mail.example.org:25',
        DIAG_SMTP_USER: 'diag',
        DIAG_SMTP_PASSWORD_FILE: file('password', 'p@ss word\n'),
        DIAG_SMTP_CA: caFile,
      },
      dir,
    ).smtp
    expect(smtp).toMatchObject({ port: 25, startTls: 'required', auth: { user: 'diag', pass: 'p@ss word' } })
    expect(smtp?.ca?.file).toBe(caFile)
    expect(smtp?.ca?.pem).toContain('-----BEGIN CERTIFICATE-----')
  })

  it('takes a login from the URL, decoded, and an explicit opportunistic STARTTLS', () => {
    const smtp = loadConfig(
      { DIAG_SMTP_URL: 'smtp://diag%40example.org:p%3Ass@[2001:db8::25]:587/', DIAG_SMTP_STARTTLS: 'opportunistic' },
      dir,
    ).smtp
    expect(smtp).toMatchObject({
      host: '2001:db8::25',
      address: '[2001:db8::25]:587',
      startTls: 'opportunistic',
      auth: { user: 'diag@example.org', pass: 'p:ss' },
    })
  })

  it.each([
    [{ DIAG_SMTP_USER: 'diag' }, ['DIAG_SMTP_USER needs DIAG_SMTP_URL (without it, mail is written to files)']],
    [
      { DIAG_SMTP_URL: 'smtps://mail.example.org', DIAG_SMTP_STARTTLS: 'required' },
      ['DIAG_SMTP_STARTTLS applies to smtp:// URLs: smtps:// is TLS from the first byte'],
    ],
    [
      { DIAG_SMTP_URL: 'smtp://mail.example.org', DIAG_SMTP_STARTTLS: 'yes' },
      ['DIAG_SMTP_STARTTLS must be required or opportunistic (got "yes")'],
    ],
    [
      { DIAG_SMTP_URL: 'smtp://mail.example.org', DIAG_SMTP_USER: 'diag' },
      ['DIAG_SMTP_USER needs a password: DIAG_SMTP_PASSWORD_FILE or DIAG_SMTP_PASSWORD'],
    ],
    [
      { DIAG_SMTP_URL: 'smtp://mail.example.org', DIAG_SMTP_PASSWORD: 'secret-1' },
      ['a DIAG_SMTP password needs DIAG_SMTP_USER'],
    ],
    [
      { DIAG_SMTP_URL: 'smtp://u:secret-2@mail.example.org', DIAG_SMTP_USER: 'diag' },
      ['DIAG_SMTP_URL carries a user: set the login there or in DIAG_SMTP_USER, not both'],
    ],
    [
      { DIAG_SMTP_URL: 'smtp://mail.example.org?requireTLS=false' },
      ['DIAG_SMTP_URL holds only smtp[s]://[user[:password]@]host[:port]: TLS and login go in DIAG_SMTP_* variables'],
    ],
    [
      { DIAG_SMTP_URL: 'smtp://u:secret-3@mail example.org' },
      ['DIAG_SMTP_URL must be an smtp:// or smtps:// URL (got "smtp://u:***@mail example.org")'],
    ],
  ])('refuses %j with one line each', (env, lines) => {
    expect(errorLines(env)).toEqual(lines)
  })

  it('names the files it cannot use', () => {
    const url = { DIAG_SMTP_URL: 'smtp://mail.example.org' }
    expect(errorLines({ ...url, DIAG_SMTP_USER: 'diag', DIAG_SMTP_PASSWORD_FILE: 'missing' })).toEqual([
      `DIAG_SMTP_PASSWORD_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`,
    ])
    expect(
      errorLines({ ...url, DIAG_SMTP_USER: 'diag', DIAG_SMTP_PASSWORD: 'a', DIAG_SMTP_PASSWORD_FILE: 'password' }),
    ).toEqual(['DIAG_SMTP_PASSWORD and DIAG_SMTP_PASSWORD_FILE: set one of them'])
    expect(errorLines({ ...url, DIAG_SMTP_CA: 'missing-ca.pem' })).toEqual([
      `DIAG_SMTP_CA: cannot read ${join(dir, 'missing-ca.pem')} (ENOENT)`,
    ])
    const notPem = file('not-a-ca.pem', 'hello\n')
    expect(errorLines({ ...url, DIAG_SMTP_CA: notPem })).toEqual([
      `DIAG_SMTP_CA: ${notPem} holds no PEM CA certificate`,
    ])
  })

  it('never shows a password in an error line', () => {
    const config = file('config.json', JSON.stringify({ DIAG_SMTP_PASSWORD: { secret: 'secret-4' } }))
    const lines = errorLines({ DIAG_CONFIG: config, DIAG_SMTP_URL: 'smtp://mail.example.org', DIAG_SMTP_USER: 'd' })
    expect(lines).toEqual(['DIAG_SMTP_PASSWORD must be a password (got a value not shown)'])
  })
})
