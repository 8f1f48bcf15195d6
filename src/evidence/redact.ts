import type { Excerpt } from '../text/excerpt.js'
import { PatternIndex } from '../text/pattern-index.js'

import { mask, secretSignatures } from './secret-signatures.js'

// Secret redaction (D15): applied to every log excerpt before anything is stored, matched
// or mailed. Over-redacting is safe, under-redacting is not. The line rules are the
// signatures of secret-signatures.ts; private key blocks, which span lines, are replaced
// first over the whole excerpt.

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

/** The expressions redaction runs, for the proofs of test/unit/redact.test.ts. */
export const redactionPatterns: readonly RegExp[] = [keyBlock, inlineKey, ...secretSignatures.map((s) => s.pattern)]

/**
 * A line can hold a secret only if it contains one of these (any case); most log lines do
 * not. Every signature names the words its matches hold.
 */
export const secretMarkers: readonly string[] = [...new Set(secretSignatures.flatMap((s) => s.markers))]

export function redact(text: string): string {
  return redactBytes(Buffer.from(text, 'utf8')).text
}

/** Rewrites one line that holds a secret marker; the result never holds a newline. */
export function redactLine(line: string): string {
  let redacted = line
  for (const { pattern, replacement } of secretSignatures) {
    redacted = redacted.replace(pattern, replacement as (match: string, ...groups: string[]) => string)
  }
  return redacted
}

/**
 * PEM private key blocks span lines, so they are replaced before the line rules run. A
 * block keeps its number of lines (the mask, then empty lines), so that the report's line
 * numbers stay those of the file.
 */
export function unblockPrivateKeys(bytes: Buffer): Buffer {
  if (!bytes.includes('PRIVATE KEY')) return bytes
  const masked = bytes
    .toString('utf8')
    .replace(keyBlock, (block, kind: string, pgp: string | undefined) => {
      const newlines = block.match(/\n/g)?.length ?? 0
      return keyMask.replaceAll('$1', kind).replaceAll('$2', pgp ?? '') + '\n'.repeat(newlines)
    })
    .replace(inlineKey, keyMask)
  return Buffer.from(masked, 'utf8')
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
