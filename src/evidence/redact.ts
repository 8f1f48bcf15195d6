import { PatternIndex } from '../rules/pattern-index.js'
import type { Excerpt } from '../text/excerpt.js'

// Secret redaction (D15): applied to every log excerpt before anything is stored, matched
// or mailed. Over-redacting is safe, under-redacting is not. Every expression has bounded
// quantifiers, so a hostile 512 KiB line costs linear time.

const mask = '[REDACTED]'
const secretKey = '(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)'

// PEM private keys span lines. A block ends at its END line or, when the excerpt cut that
// off, where its base64 lines end: the log lines after it are evidence and stay.
const pemBlock: [RegExp, string] = [
  /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY-----(?:\r?\n(?:Proc-Type|DEK-Info):[^\r\n]{0,200}){0,4}(?:\r?\n[A-Za-z0-9+/=]{1,200}(?=\r?\n|$)){0,4000}(?:\r?\n-----END \1PRIVATE KEY-----)?/g,
  `-----BEGIN $1PRIVATE KEY----- ${mask} -----END $1PRIVATE KEY-----`,
]

/**
 * A line can hold a secret only if it contains one of these (any case); most log lines do
 * not. Every rule below needs one of them in its match.
 */
export const secretMarkers: readonly string[] = [
  'pass',
  'pwd',
  'secret',
  'token',
  'api',
  'access',
  'private',
  'credential',
  'authoriz',
  'bearer',
  'basic',
  'session',
  'sid=',
  'ltpa',
  '://',
  'eyJ',
  'AKIA',
  'ASIA',
  'AGPA',
  'AIDA',
  'AROA',
  'oracle',
]

// Each rule applies within one line.
const lineRules: Array<[RegExp, string]> = [
  // JSON Web Tokens: header.payload.signature, both first parts base64url JSON.
  [/\beyJ[A-Za-z0-9_-]{4,4096}\.eyJ[A-Za-z0-9_-]{4,8192}\.[A-Za-z0-9_-]{0,4096}/g, `${mask}-JWT`],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b/g, `${mask}-AWS-KEY`],
  // Authorization headers, and bare Bearer/Basic credentials.
  [
    /(\bAuthorization\s{0,5}[:=]\s{0,5})(?:(Basic|Bearer|Digest|Negotiate|Token)\s{1,5})?[^\s,;"'}]{1,4096}/gi,
    `$1$2 ${mask}`,
  ],
  [/\b(Bearer|Basic)\s{1,5}[A-Za-z0-9._~+/=-]{8,4096}/g, `$1 ${mask}`],
  // user:password@ in URLs (JDBC, AMQP, Redis, HTTP, …) and Oracle's user/password@. The
  // match starts at the literal `://`, which V8 searches for fast; the scheme before it
  // needs no check.
  [/(:\/\/[^\s/:@]{1,256}):[^\s/@]{1,1024}@/g, `$1:${mask}@`],
  [/\b(jdbc:oracle:[a-z]{1,10}:[^\s/@:]{1,256})\/[^\s@]{1,1024}@/gi, `$1/${mask}@`],
  // Session cookies and URL session ids.
  [/(;jsessionid=)[^?#\s;"']{1,4096}/gi, `$1${mask}`],
  [/\b(JSESSIONID(?:SSO)?|SESSIONID|SESSION|PHPSESSID|LtpaToken2?|connect\.sid)=[^;\s,"'?&#[]{1,4096}/gi, `$1=${mask}`],
  // The two key-value rules start at the secret word itself: a leading `[\w.-]*` before it
  // would be retried at every position (quadratic). The key's prefix (keyStore in
  // keyStorePassword) lies outside the match and stays readable.
  // JSON: "somePassword": "value".
  [new RegExp(`(${secretKey}[\\w.-]{0,64}"\\s{0,5}:\\s{0,5}")(?:[^"\\\\]|\\\\.){0,4096}"`, 'gi'), `$1${mask}"`],
  // key=value and key: value, including URL parameters and JVM arguments
  // (-Djavax.net.ssl.keyStorePassword=…, ?password=…, ;password=…).
  [new RegExp(`(${secretKey}[\\w.-]{0,64}\\s{0,5}[=:]\\s{0,5})(["']?)[^\\s"',;&}]{1,4096}`, 'gi'), `$1$2${mask}`],
]

export function redact(text: string): string {
  return redactBytes(Buffer.from(text, 'utf8')).text
}

/** Rewrites one line that holds a secret marker; the result never holds a newline. */
export function redactLine(line: string): string {
  let redacted = line
  for (const [pattern, replacement] of lineRules) redacted = redacted.replace(pattern, replacement)
  return redacted
}

/** PEM private key blocks span lines, so they are replaced before the line rules run. */
export function unblockPrivateKeys(bytes: Buffer): Buffer {
  if (!bytes.includes('PRIVATE KEY')) return bytes
  return Buffer.from(bytes.toString('utf8').replace(pemBlock[0], pemBlock[1]), 'utf8')
}

/** An index of the markers alone: its rewriting scan is redaction with nothing to match. */
const markerIndex = new PatternIndex([], secretMarkers)

/**
 * Redacts UTF-8 log bytes. One automaton pass over the bytes finds the lines that hold a
 * secret marker (about twice as fast as a case-insensitive alternation per line); only
 * those lines are decoded and rewritten (PatternIndex.scanRewriting, which the worker's
 * analysis runs with the rules' words in the same pass). An excerpt without one comes back
 * as it was, not even decoded.
 */
export function redactBytes(bytes: Buffer): Excerpt {
  return markerIndex.scanRewriting(unblockPrivateKeys(bytes), redactLine).excerpt
}
