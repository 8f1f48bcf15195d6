// The words that name a secret and the shapes of a value, shared by the line signatures
// (secret-signatures.ts, config-dump-signatures.ts) and the values on the next lines
// (values-on-next-lines.ts); docs/design.md, "Secret redaction".

export const mask = '[REDACTED]'

/**
 * Key words whose value is a secret, in key=value, JSON, XML and command-line forms; a
 * key's name (SharedAccessKeyName=send) is not its value. `clear-text` is how the WildFly
 * CLI gives a credential-reference its password; `subscription-key` is an API gateway's key.
 */
export const secretKey =
  '(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|account[_-]?key|shared[_-]?access[_-]?key|subscription[_-]?key|clear[_-]?text)(?![_-]?name)'
/** Words that every `secretKey` match holds (the prefilter must not miss one). */
export const keyMarkers = [
  'pass',
  'pwd',
  'secret',
  'token',
  'api',
  'access',
  'private',
  'credential',
  'accountkey',
  'account_key',
  'account-key',
  'subscription',
  'cleartext',
  'clear_text',
  'clear-text',
]

/**
 * Cookies whose value is a session or a sign-on: the servlet session (and Tomcat's single
 * sign-on), Liberty's LTPA, SiteMinder, OpenSSO/OpenAM, CAS, Keycloak, Oracle Access
 * Manager, F5 APM, and the remember-me cookies of Spring Security (both names) and Shiro.
 */
export const cookieName =
  '(?:JSESSIONID(?:SSO)?|SESSIONID|SESSION|PHPSESSID|LtpaToken2?|connect\\.sid|SMSESSION|iPlanetDirectoryPro|CASTGC|KEYCLOAK_(?:IDENTITY|SESSION)(?:_LEGACY)?|ObSSOCookie|OAMAuthnCookie|MRHSession|remember-me|rememberMe|SPRING_SECURITY_REMEMBER_ME_COOKIE)'
/** Words that every `cookieName` match holds. */
export const cookieMarkers = [
  'session',
  'sid=',
  'ltpa',
  'iplanetdirectorypro',
  'castgc',
  'keycloak_',
  'obssocookie',
  'oamauthncookie',
  'remember',
]

/** A value: quoted (spaces allowed; groups 2 and 3 hold it) or bare. */
export const value = `(?:"([^"\\r\\n]{0,4096})"|'([^'\\r\\n]{0,4096})'|[^\\s"',;&}]{1,4096})`
/** Masks a value, keeping its quotes. */
export const maskValue = (_match: string, prefix: string, double?: string, single?: string) =>
  double !== undefined ? `${prefix}"${mask}"` : single !== undefined ? `${prefix}'${mask}'` : `${prefix}${mask}`
/** The start of an identifier (a key such as -Djavax.net.ssl.keyStorePassword). */
export const idStart = '(?<![\\w.-])'
/** An identifier holding a secret word: its prefix (keyStore), the word, its suffix. */
export const keyInIdentifier = `[\\w.-]{0,96}?${secretKey}[\\w.-]{0,64}`
/** What separates a key from its value: `=`, `:`, and the WildFly CLI's `=>`. */
export const separator = '(?:=>|[=:])'
