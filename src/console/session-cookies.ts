import type { CookieSerializeOptions } from '@fastify/cookie'

// The console's two cookies (docs/design.md, "The web console"). `__Host-` makes the browser
// refuse them unless Secure, without Domain and with Path=/: no other host under the same
// domain can set or overwrite them, which the CSRF cookie's double submit relies on.
// SameSite=Strict keeps them off every request another site starts.

export const sessionCookie = '__Host-diag-session'
export const csrfCookie = '__Host-diag-csrf'

/** The CSRF secret's cookie, and what clears the session's (a cookie is cleared with the attributes it was set with). */
export const hostOnly: CookieSerializeOptions = { path: '/', secure: true, httpOnly: true, sameSite: 'strict' }

/** The session cookie lives as long as the session may (its idle end is the server's to enforce). */
export const sessionCookieOptions = (maxAgeMs: number): CookieSerializeOptions => ({
  ...hostOnly,
  maxAge: Math.floor(maxAgeMs / 1000),
})
