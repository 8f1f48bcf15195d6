import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { allScopes, ensureGeneratedToken, parseBearer, readTokensFile, TokenVerifier } from '../../src/auth/tokens.js'
import { ConfigError } from '../../src/config/load.js'
import { sha256Bytes } from '../../src/sha256.js'

const dir = mkdtempSync(join(tmpdir(), 'diag-tokens-'))

describe('bearer tokens (D5)', () => {
  it('parses the Bearer scheme only', () => {
    expect(parseBearer('Bearer abc.def-1')).toBe('abc.def-1')
    expect(parseBearer('bearer abc')).toBe('abc')
    expect(parseBearer('Basic abc')).toBeNull()
    expect(parseBearer('Bearer ')).toBeNull()
    expect(parseBearer('Bearer a b')).toBeNull()
    expect(parseBearer(undefined)).toBeNull()
  })

  it('verifies against every entry and honours expiry, returning the principal', () => {
    const now = Date.parse('2026-06-01T00:00:00Z')
    const verifier = new TokenVerifier([
      {
        name: 'old',
        hash: sha256Bytes('rotating-token-old'),
        scopes: ['webhook'],
        expiresAt: Date.parse('2026-07-01T00:00:00Z'),
      },
      { name: 'new', hash: sha256Bytes('rotating-token-new'), scopes: ['webhook'] },
      {
        name: 'gone',
        hash: sha256Bytes('expired-token-xyz'),
        scopes: allScopes,
        expiresAt: Date.parse('2026-01-01T00:00:00Z'),
      },
    ])
    expect(verifier.check('rotating-token-old', now)).toEqual({ principal: { name: 'old', scopes: ['webhook'] } })
    expect(verifier.check('rotating-token-new', now)).toMatchObject({ principal: { name: 'new' } })
    expect(verifier.check('rotating-token-old', Date.parse('2026-07-01T00:00:00Z'))).toEqual({
      refused: 'expired',
      name: 'old',
    })
    expect(verifier.check('expired-token-xyz', now)).toEqual({ refused: 'expired', name: 'gone' })
    expect(verifier.check('rotating-token-ol', now)).toEqual({ refused: 'unknown' })
  })

  it('reads a tokens file with plain and sha256 entries; an entry without scopes has all three', () => {
    const file = join(dir, 'ok.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'am', token: 'alertmanager-token-01', scopes: ['webhook'] },
        { name: 'ci', sha256: sha256Bytes('ci-token-0000000001').toString('hex'), expiresAt: '2030-01-01T00:00:00Z' },
      ]),
    )
    const entries = readTokensFile(file)
    expect(entries.map((e) => [e.name, e.scopes])).toEqual([
      ['am', ['webhook']],
      ['ci', ['webhook', 'rules:write', 'read']],
    ])
    expect(new TokenVerifier(entries).check('ci-token-0000000001')).toMatchObject({ principal: { name: 'ci' } })
  })

  it.each([
    ['not JSON', '{', /is not valid JSON/],
    ['an entry with neither token nor sha256', JSON.stringify([{ name: 'x' }]), /entry \/0/],
    ['a short token', JSON.stringify([{ name: 'x', token: 'short' }]), /entry \/0\/token/],
    [
      'duplicate names',
      JSON.stringify([
        { name: 'x', token: 'token-number-one-1' },
        { name: 'x', token: 'token-number-two-2' },
      ]),
      /duplicate token name "x"/,
    ],
    ['the reserved name seed', JSON.stringify([{ name: 'seed', token: 'token-number-one-1' }]), /"seed" is reserved/],
    ['an unknown scope', JSON.stringify([{ name: 'x', token: 'token-number-one-1', scopes: ['admin'] }]), /scopes/],
    ['no scope at all', JSON.stringify([{ name: 'x', token: 'token-number-one-1', scopes: [] }]), /scopes/],
  ])('rejects a tokens file with %s', (_name, text, message) => {
    const file = join(dir, 'bad.json')
    writeFileSync(file, text)
    expect(() => readTokensFile(file)).toThrow(ConfigError)
    expect(() => readTokensFile(file)).toThrow(message)
  })

  it('generates a token once, mode 0600, and reuses it', () => {
    const file = join(dir, 'data', 'api-token')
    const first = ensureGeneratedToken(file)
    expect(first.created).toBe(true)
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(ensureGeneratedToken(file)).toEqual({ token: first.token, created: false })
  })
})
