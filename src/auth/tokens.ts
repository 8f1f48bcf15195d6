import { randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createAjv, loadSchema } from '../ajv.js'
import { ConfigError } from '../config/load.js'
import { toInstant } from '../instant.js'
import type { ApiTokenFile } from '../schema-types/api-token-file.js'
import { toDetails } from '../schema-words.js'
import { sha256Bytes } from '../sha256.js'

/**
 * What a token may do: post Alertmanager webhooks, register rules, read rules and
 * incidents. Alertmanager's token needs only `webhook`; a token that can register a rule
 * can change what every diagnosis says, so it is given apart.
 */
export const allScopes = ['webhook', 'rules:write', 'read'] as const
export type Scope = (typeof allScopes)[number]

export interface TokenEntry {
  name: string
  hash: Buffer
  expiresAt?: number
  scopes: readonly Scope[]
}

export interface Principal {
  name: string
  scopes: readonly Scope[]
}

export type TokenCheck = { principal: Principal } | { refused: 'unknown' } | { refused: 'expired'; name: string }

/** Why a request carries no valid token, for the log (never the token itself). */
export type AuthRefusal = 'missing' | 'malformed' | 'unknown' | 'expired'

/** Rules registered on the first start carry this name (rules/seed.ts); no token may. */
export const reservedTokenNames = new Set(['seed'])

const validateFile = createAjv().compile<ApiTokenFile>(loadSchema('api-tokens.schema.json'))

export function readTokensFile(file: string): TokenEntry[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    const reason = err instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read'
    throw new ConfigError([`DIAG_API_TOKENS_FILE: ${file} ${reason}`])
  }
  if (!validateFile(parsed)) {
    const lines = toDetails(validateFile.errors).map(
      (detail) => `DIAG_API_TOKENS_FILE: entry ${detail.path} ${detail.message}`,
    )
    throw new ConfigError(lines)
  }
  const names = new Set<string>()
  return parsed.map((entry) => {
    if (names.has(entry.name)) throw new ConfigError([`DIAG_API_TOKENS_FILE: duplicate token name "${entry.name}"`])
    if (reservedTokenNames.has(entry.name)) {
      throw new ConfigError([`DIAG_API_TOKENS_FILE: the token name "${entry.name}" is reserved`])
    }
    names.add(entry.name)
    const hash = entry.sha256 ? Buffer.from(entry.sha256, 'hex') : sha256Bytes(entry.token as string)
    const scopes = entry.scopes ?? allScopes
    return entry.expiresAt
      ? { name: entry.name, hash, scopes, expiresAt: toInstant(entry.expiresAt) }
      : { name: entry.name, hash, scopes }
  })
}

/**
 * D3: with no token configured, one is generated once into `file` (mode 0600) and reused
 * on later starts. Returns the token and whether this call created it (print it once).
 */
export function ensureGeneratedToken(file: string): { token: string; created: boolean } {
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), created: false }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const token = randomBytes(32).toString('base64url')
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' })
  return { token, created: true }
}

/**
 * Compares the presented token against every configured hash with timingSafeEqual and no
 * early exit (D5), so the time taken says nothing about which entry, if any, matched.
 */
export class TokenVerifier {
  private readonly entries: readonly TokenEntry[]

  constructor(entries: TokenEntry[]) {
    if (entries.length === 0) throw new Error('at least one API token is required')
    this.entries = entries
  }

  /** The names and ends of the tokens that expire, for diagnostic_api_token_expires_in_seconds (never a token or its hash). */
  expiries(): Array<{ name: string; expiresAt: number }> {
    return this.entries.flatMap(({ name, expiresAt }) => (expiresAt === undefined ? [] : [{ name, expiresAt }]))
  }

  /** The principal (token name and scopes), or why the token is refused: unknown, or expired (with the entry's name). */
  check(presented: string, now = Date.now()): TokenCheck {
    const hash = sha256Bytes(presented)
    let match: TokenEntry | null = null
    for (const entry of this.entries) {
      if (timingSafeEqual(hash, entry.hash) && match === null) match = entry
    }
    if (match === null) return { refused: 'unknown' }
    if (match.expiresAt !== undefined && match.expiresAt <= now) return { refused: 'expired', name: match.name }
    return { principal: { name: match.name, scopes: match.scopes } }
  }

  /**
   * The entry named `name` as configured now, unless it expired: a console session signed in
   * with a token lasts no longer than that token stays configured (docs/design.md, "The web console").
   */
  named(name: string, now = Date.now()): Principal | undefined {
    const entry = this.entries.find((e) => e.name === name)
    if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= now)) return undefined
    return { name: entry.name, scopes: entry.scopes }
  }
}

const bearer = /^Bearer +([\x21-\x7e]{1,1024}) *$/i

export function parseBearer(header: string | undefined): string | null {
  if (header === undefined) return null
  return bearer.exec(header)?.[1] ?? null
}
