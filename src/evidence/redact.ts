import type { Excerpt } from '../text/excerpt.js'
import { type LineRewriter, PatternIndex } from '../text/pattern-index.js'
import { emailSignature, maskCardNumbers, optionPatterns, type RedactionOptions } from './redaction-options.js'
import { mask, type SecretSignature, secretSignatures } from './secret-signatures.js'
import { linesAfter, maskValuesOnNextLines, nextLinePatterns } from './values-on-next-lines.js'

// Secret redaction (D15): applied to every log excerpt before anything is stored, matched
// or mailed. Over-redacting is safe, under-redacting is not. The line rules are the
// signatures of secret-signatures.ts, with the values a key opens on the lines after it
// (values-on-next-lines.ts); private key blocks, which span lines, and private keys encoded
// in base64 once more are replaced first over the whole excerpt.

/**
 * PEM and PGP private key blocks on lines of their own, indented or not. A block ends at
 * its END line or, when the excerpt cut that off, where its base64 lines end: the log
 * lines after it are evidence and stay. Header lines (Proc-Type, DEK-Info, PGP's Version
 * and the blank line after it) are part of the block.
 */
const keyBlock =
  /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----[ \t]{0,40}(?=\r?\n|$)(?:\r?\n[ \t]{0,40}(?:[A-Za-z-]{1,40}:[^\r\n]{0,200})?(?=\r?\n)){0,8}(?:\r?\n[ \t]{0,40}[A-Za-z0-9+/=]{1,200}(?=\r?\n|$)){0,4000}(?:\r?\n[ \t]{0,40}-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g

/**
 * A key within one line: a PEM pasted on one line, or JSON's escaped newlines
 * (`-----BEGIN PRIVATE KEY-----\nMIIE…\n-----END PRIVATE KEY-----`), up to its END or,
 * cut off, to the end of its characters.
 */
const inlineKey =
  /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----(?:\\[nr]|[ \t]){0,8}[A-Za-z0-9+/=](?:\\[nr]|[ \t]|[A-Za-z0-9+/=]){0,20000}(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g

const keyMask = `-----BEGIN $1PRIVATE KEY$2----- ${mask} -----END $1PRIVATE KEY$2-----`

/**
 * "PRIVATE KEY" in base64 at each of the three byte alignments (only the characters that
 * depend on those bytes alone): a PEM key encoded once more, as in a Kubernetes Secret
 * (`LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t…`), or inside a base64-encoded file that holds one.
 */
const base64KeyWords = ['UFJJVkFURSBL', 'BSSVZBVEUgS0VZ', 'QUklWQVRFIEtF']
const base64KeyBytes = base64KeyWords.map((word) => Buffer.from(word))
/**
 * The whole base64 run holding one of them, and the lines of base64 alone that continue it
 * when it was wrapped (`base64` wraps at 76 columns, YAML block scalars indent it).
 */
const base64Key = new RegExp(
  `(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{0,2048}?(?:${base64KeyWords.join('|')})[A-Za-z0-9+/]{0,65536}={0,2}(?:[ \\t]{0,40}\\r?\\n[ \\t]{0,40}[A-Za-z0-9+/]{8,200}={0,2}(?=[ \\t]{0,40}(?:\\r?\\n|$))){0,4000}`,
  'g',
)

/** The expressions redaction runs, for the proofs of test/unit/redact.test.ts. */
export const redactionPatterns: readonly RegExp[] = [
  keyBlock,
  inlineKey,
  base64Key,
  ...secretSignatures.map((s) => s.pattern),
  ...nextLinePatterns,
  ...optionPatterns,
]

/**
 * A line can hold a secret only if it contains one of these (any case); most log lines do
 * not. Every signature names the words its matches hold.
 */
export const secretMarkers: readonly string[] = [...new Set(secretSignatures.flatMap((s) => s.markers))]

/**
 * Redacts any text with the rules of log excerpts: a log excerpt, or one short string such
 * as an alert's label or annotation value or its generator URL.
 */
export function redact(text: string, options: RedactionOptions = {}): string {
  return redactBytes(Buffer.from(text, 'utf8'), options).text
}

/** Applies the line signatures to one line. */
export function redactWith(signatures: readonly SecretSignature[], line: string): string {
  let redacted = line
  for (const { pattern, replacement, requires } of signatures) {
    if (requires !== undefined && !redacted.includes(requires)) continue
    redacted = redacted.replace(pattern, replacement as (match: string, ...groups: string[]) => string)
  }
  return redacted
}

/**
 * A record's rewriter: one line that holds a secret marker, or that line and the lines
 * after it that may hold its value (`linesAfter`), joined by newlines. Keeps the number of
 * lines.
 */
export function recordRedactor(signatures: readonly SecretSignature[]): LineRewriter {
  const redactRecord = (record: string): string => {
    if (!record.includes('\n')) return redactWith(signatures, record)
    const lines = record.split('\n')
    maskValuesOnNextLines(lines)
    return lines.map((line) => redactWith(signatures, line)).join('\n')
  }
  return Object.assign(redactRecord, { linesAfter })
}

/** Rewrites a line that holds a secret marker, with the lines after it that hold its value. */
export const redactLine: LineRewriter = recordRedactor(secretSignatures)

/**
 * PEM private key blocks span lines, and so may a key encoded in base64 once more: they
 * are replaced before the line rules run. A block keeps its number of lines (the mask, then
 * empty lines), so that the report's line numbers stay those of the file.
 */
export function unblockPrivateKeys(bytes: Buffer): Buffer {
  const pem = bytes.includes('PRIVATE KEY')
  const base64 = base64KeyBytes.some((word) => bytes.includes(word))
  if (!pem && !base64) return bytes
  let text = bytes.toString('utf8')
  if (pem) {
    text = text
      .replace(keyBlock, (block, kind: string, pgp: string | undefined) => {
        return keyMask.replaceAll('$1', kind).replaceAll('$2', pgp ?? '') + '\n'.repeat(newlinesIn(block))
      })
      .replace(inlineKey, keyMask)
  }
  if (base64) text = text.replace(base64Key, (run) => `${mask}-BASE64-PRIVATE-KEY${'\n'.repeat(newlinesIn(run))}`)
  return Buffer.from(text, 'utf8')
}

const newlinesIn = (text: string) => text.match(/\n/g)?.length ?? 0

/** What redaction runs with a set of options: the whole-excerpt pass, the markers, the line rewriter. */
export interface Redaction {
  prepare: (bytes: Buffer) => Buffer
  markers: readonly string[]
  rewrite: LineRewriter
  /** An index of the markers alone: its rewriting scan is redaction with nothing to match. */
  index: PatternIndex
}

const redactions = new Map<string, Redaction>()

/**
 * The redaction for a set of options, built once per set (the engine's scanner keeps an
 * index per markers array, so the same options must give the same array).
 */
export function redactionOf(options: RedactionOptions = {}): Redaction {
  const cards = options.maskCardNumbers === true
  const emails = options.maskEmails === true
  const key = `${cards}/${emails}`
  let redaction = redactions.get(key)
  if (!redaction) {
    const signatures = emails ? [...secretSignatures, emailSignature] : secretSignatures
    const markers = emails ? [...secretMarkers, ...emailSignature.markers] : secretMarkers
    const prepare = cards
      ? (bytes: Buffer) => {
          const unblocked = unblockPrivateKeys(bytes)
          return Buffer.from(maskCardNumbers(unblocked.toString('utf8')), 'utf8')
        }
      : unblockPrivateKeys
    const rewrite = emails ? recordRedactor(signatures) : redactLine
    redaction = { prepare, markers, rewrite, index: new PatternIndex([], markers) }
    redactions.set(key, redaction)
  }
  return redaction
}

/**
 * Redacts UTF-8 log bytes. One automaton pass over the bytes finds the lines that hold a
 * secret marker (about twice as fast as a case-insensitive alternation per line); only
 * those lines are decoded and rewritten (PatternIndex.scanRewriting, which the worker's
 * analysis runs with the rules' words in the same pass). An excerpt without one comes back
 * as it was, not even decoded.
 */
export function redactBytes(bytes: Buffer, options: RedactionOptions = {}): Excerpt {
  const { index, rewrite, prepare } = redactionOf(options)
  return index.scanRewriting(prepare(bytes), rewrite).excerpt
}
