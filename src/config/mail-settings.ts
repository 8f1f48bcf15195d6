import { readFileSync } from 'node:fs'
import { createSecureContext } from 'node:tls'

/** `required`: no mail (and no password) before STARTTLS succeeds; `opportunistic`: TLS when offered. */
export type StartTls = 'required' | 'opportunistic'

/** The SMTP relay (docs/operations.md, "Mail (D24)"). */
export interface SmtpSettings {
  host: string
  /** Unset: 465 for smtps://, 587 for smtp:// (nodemailer's defaults). */
  port?: number
  /** smtps://: TLS from the first byte (implicit TLS). */
  secure: boolean
  /** smtp:// only. */
  startTls: StartTls
  /** A PEM CA bundle trusted for the relay's certificate instead of the system's. */
  ca?: { file: string; pem: string }
  auth?: { user: string; pass: string }
  /** host:port, for log lines. */
  address: string
}

export interface MailVariables {
  url?: string
  startTls?: string
  caFile?: string
  user?: string
  password?: string
  passwordFile?: string
}

/** A URL as an error line may show it: never its password. */
export const withoutPassword = (url: string) => url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, '$1:***@')

const readable = (variable: string, file: string, read: (file: string) => string): string | Error => {
  try {
    return read(file)
  } catch (error) {
    return new Error(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}

function parseUrl(url: string, errors: string[]): URL | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    errors.push(`DIAG_SMTP_URL must be an smtp:// or smtps:// URL (got ${JSON.stringify(withoutPassword(url))})`)
    return undefined
  }
  if (parsed.search || parsed.hash || (parsed.pathname !== '' && parsed.pathname !== '/')) {
    errors.push(
      'DIAG_SMTP_URL holds only smtp[s]://[user[:password]@]host[:port]: TLS and login go in DIAG_SMTP_* variables',
    )
    return undefined
  }
  return parsed
}

function credentials(parsed: URL, vars: MailVariables, errors: string[]) {
  const fromUrl = parsed.username !== ''
  if (fromUrl && (vars.user || vars.password || vars.passwordFile)) {
    errors.push('DIAG_SMTP_URL carries a user: set the login there or in DIAG_SMTP_USER, not both')
  }
  if (vars.password !== undefined && vars.passwordFile !== undefined) {
    errors.push('DIAG_SMTP_PASSWORD and DIAG_SMTP_PASSWORD_FILE: set one of them')
  }
  let pass = fromUrl ? decodeURIComponent(parsed.password) : vars.password
  if (vars.passwordFile !== undefined) {
    // One line; the newline an editor or `echo` leaves at its end is not part of it.
    const text = readable('DIAG_SMTP_PASSWORD_FILE', vars.passwordFile, (file) => readFileSync(file, 'utf8'))
    if (text instanceof Error) {
      errors.push(text.message)
      return undefined
    }
    pass = text.replace(/\r?\n$/, '')
  }
  const user = fromUrl ? decodeURIComponent(parsed.username) : vars.user
  if (user && !pass) errors.push('DIAG_SMTP_USER needs a password: DIAG_SMTP_PASSWORD_FILE or DIAG_SMTP_PASSWORD')
  if (!user && pass) errors.push('a DIAG_SMTP password needs DIAG_SMTP_USER')
  return user && pass ? { user, pass } : undefined
}

function trustedCa(file: string, errors: string[]): SmtpSettings['ca'] {
  const pem = readable('DIAG_SMTP_CA', file, (path) => readFileSync(path, 'utf8'))
  if (pem instanceof Error) {
    errors.push(pem.message)
    return undefined
  }
  try {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no certificate')
    createSecureContext({ ca: pem })
  } catch {
    errors.push(`DIAG_SMTP_CA: ${file} holds no PEM CA certificate`)
    return undefined
  }
  return { file, pem }
}

/**
 * The relay's settings from the DIAG_SMTP_* variables, or the lines that say what is wrong.
 * With a login and no DIAG_SMTP_STARTTLS, STARTTLS is required: a password never crosses
 * the network in clear because a relay (or whoever sits between) did not offer TLS.
 */
export function parseMailSettings(vars: MailVariables): { smtp?: SmtpSettings; errors: string[] } {
  const errors: string[] = []
  if (vars.url === undefined) {
    const stray = Object.entries({
      DIAG_SMTP_STARTTLS: vars.startTls,
      DIAG_SMTP_CA: vars.caFile,
      DIAG_SMTP_USER: vars.user,
      DIAG_SMTP_PASSWORD: vars.password,
      DIAG_SMTP_PASSWORD_FILE: vars.passwordFile,
    }).flatMap(([name, value]) => (value === undefined ? [] : [name]))
    for (const name of stray) errors.push(`${name} needs DIAG_SMTP_URL (without it, mail is written to files)`)
    return { errors }
  }
  const parsed = parseUrl(vars.url, errors)
  if (!parsed) return { errors }
  const secure = parsed.protocol === 'smtps:'
  if (secure && vars.startTls !== undefined) {
    errors.push('DIAG_SMTP_STARTTLS applies to smtp:// URLs: smtps:// is TLS from the first byte')
  }
  const auth = credentials(parsed, vars, errors)
  const ca = vars.caFile === undefined ? undefined : trustedCa(vars.caFile, errors)
  if (errors.length > 0) return { errors }
  const port = parsed.port === '' ? undefined : Number(parsed.port)
  const smtp: SmtpSettings = {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    secure,
    startTls: (vars.startTls as StartTls | undefined) ?? (auth ? 'required' : 'opportunistic'),
    address: `${parsed.hostname}:${port ?? (secure ? 465 : 587)}`,
    ...(port === undefined ? {} : { port }),
    ...(ca ? { ca } : {}),
    ...(auth ? { auth } : {}),
  }
  return { smtp, errors }
}
