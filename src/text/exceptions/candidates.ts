import { AhoCorasick } from '../aho-corasick.js'
import { driverMessageWords } from './driver-messages.js'
import { jvmReasonWords } from './jvm-reasons.js'

// The lines the exception reader looks at: one pass of the byte automaton over the excerpt
// for the words an exception or a code line needs. Case is folded, so `error` also finds
// `ERROR` lines; the reader checks each candidate with exact-case searches.

/** The words a line needs to be read by the exception reader (case folded). */
export const candidateWords: readonly string[] = [
  'exception',
  'error',
  'throwable',
  // A SOAP stack's `…Fault: message` (throwable-names.ts); `fault` alone is in every `default`.
  'fault: ',
  'caused by: ',
  'sqlstate',
  'sql state',
  'ora-',
  'tns-',
  'sqlcode',
  'econnrefused',
  'econnreset',
  'etimedout',
  'ehostunreach',
  'enetunreach',
  'enospc',
  'emfile',
  'enfile',
  'eaddrinuse',
  'epipe',
  'edquot',
  'erofs',
  'enomem',
  'eai_again',
  'eai_noname',
  // An errno written as its number after its label, `errno=24` (codes.ts).
  'errno',
  // A JVM error's reason or a driver's own message printed without its class (jvm-reasons.ts, driver-messages.ts).
  ...jvmReasonWords,
  ...driverMessageWords,
]

let automaton: AhoCorasick | undefined

/** The byte offset where each line holding one of the words starts, in order (two Buffer searches a line). */
export function candidateLines(bytes: Buffer): number[] {
  automaton ??= new AhoCorasick(candidateWords)
  const found: number[] = []
  let lineEnd = -1 // the newline that ends the last line found
  automaton.scan(bytes, (_id, at) => {
    if (at <= lineEnd) return undefined
    const start = at === 0 ? 0 : bytes.lastIndexOf(10, at - 1) + 1
    found.push(start)
    const nl = bytes.indexOf(10, at)
    lineEnd = nl === -1 ? bytes.length : nl
    return undefined
  })
  return found
}

/**
 * The byte offsets where the given 1-based lines (ascending) start: the candidate lines when
 * another pass already noted which lines hold a word (PatternIndex.scanRewriting's line
 * words), so that the reader needs no pass of its own.
 */
export function lineStarts(bytes: Buffer, lines: readonly number[]): number[] {
  const starts: number[] = []
  let line = 1
  let start = 0
  for (const wanted of lines) {
    while (line < wanted) {
      const nl = bytes.indexOf(10, start)
      if (nl === -1) return starts
      start = nl + 1
      line++
    }
    starts.push(start)
  }
  return starts
}
