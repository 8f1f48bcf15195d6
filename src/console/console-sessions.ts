import { randomBytes } from 'node:crypto'
import type { Scope, TokenVerifier } from '../auth/tokens.js'
import { sha256Hex } from '../sha256.js'
import type { ConsoleSessions } from '../store/console-port.js'

// Sign-in exchanges a token with the `read` scope for a session kept in the database, so
// that any replica accepts it and sign-out ends it everywhere (docs/design.md, "The web
// console"). The browser holds the session id; the database only its SHA-256.

export interface SessionBounds {
  /** From sign-in, whatever the use. */
  sessionMs: number
  /** Without a request. */
  idleMs: number
}

/** Who a console request is, from its session. */
export interface SignedIn {
  idHash: string
  principal: string
  scopes: readonly Scope[]
  expiresAt: number
}

export type SignInRefusal = 'unknown' | 'expired' | 'no_read_scope'

/** Each refusal as the sign-in page says it: what is wrong and what to do, never the token. */
export const signInMessages: Record<SignInRefusal, string> = {
  unknown: 'This token is not known to the service. Check that you pasted the whole token.',
  expired: 'This token has expired. Ask the operator of the service for a new one.',
  no_read_scope: 'This token does not have the read scope, which the console needs.',
}

// The idle end is written at most this often: a page view is a read, not a write each time.
const touchEveryMs = 60_000

export class ConsoleSessionService {
  constructor(
    private readonly store: ConsoleSessions,
    private readonly tokens: Pick<TokenVerifier, 'check' | 'named'>,
    private readonly bounds: SessionBounds,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session for a token with the read scope: its id (the cookie's value) and when it ends. */
  async signIn(token: string): Promise<{ id: string; session: SignedIn } | { refused: SignInRefusal }> {
    const checked = this.tokens.check(token)
    if ('refused' in checked) return { refused: checked.refused }
    const { name, scopes } = checked.principal
    if (!scopes.includes('read')) return { refused: 'no_read_scope' }
    const id = randomBytes(32).toString('base64url')
    const now = this.now()
    const idHash = sha256Hex(id)
    const expiresAt = now + this.bounds.sessionMs
    await this.store.createSession({
      idHash,
      principal: name,
      scopes: [...scopes],
      createdAt: now,
      idleUntil: Math.min(expiresAt, now + this.bounds.idleMs),
      expiresAt,
    })
    return { id, session: { idHash, principal: name, scopes, expiresAt } }
  }

  /**
   * The session of a cookie's id, if it has not ended and its token is still configured and
   * unexpired; its scopes are those it signed in with that the token still has.
   */
  async resolve(id: string): Promise<SignedIn | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined
    const now = this.now()
    const idHash = sha256Hex(id)
    const stored = await this.store.findSession(idHash, now)
    if (!stored) return undefined
    const token = this.tokens.named(stored.principal, now)
    if (!token) return undefined
    const scopes = token.scopes.filter((scope) => stored.scopes.includes(scope))
    if (!scopes.includes('read')) return undefined
    const idleUntil = Math.min(stored.expiresAt, now + this.bounds.idleMs)
    if (idleUntil - stored.idleUntil >= touchEveryMs) await this.store.touchSession(idHash, idleUntil)
    return { idHash, principal: stored.principal, scopes, expiresAt: stored.expiresAt }
  }

  async signOut(session: SignedIn): Promise<void> {
    await this.store.deleteSession(session.idHash)
  }
}
