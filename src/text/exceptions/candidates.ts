import { AhoCorasick } from '../aho-corasick.js'

// The lines the exception reader looks at: one pass of the byte automaton over the excerpt
// for the words an exception or a code line needs. Case is folded, so `error` also finds
// `ERROR` lines; the reader checks each candidate with exact-case searches.

const words = [
  'exception',
  'error',
  'throwable',
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
]

let automaton: AhoCorasick | undefined

/** The byte offset where each line holding one of the words starts, in order (two Buffer searches a line). */
export function candidateLines(bytes: Buffer): number[] {
  automaton ??= new AhoCorasick(words)
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
