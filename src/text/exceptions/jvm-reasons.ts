import { isIdentifierChar } from './throwable-names.js'

// A JVM error's reason printed without its class: some loggers and frameworks log only
// `getMessage()` (a Hazelcast client on Liberty logs `Java heap space` alone on a line).
// Only the JDK's own fixed detail messages of OutOfMemoryError are read so, because only
// the JDK throws an OutOfMemoryError with them:
// - HotSpot's preallocated errors, https://github.com/openjdk/jdk/blob/master/src/hotspot/share/memory/universe.cpp
//   (`Java heap space`, `Metaspace`, `Compressed class space`, `Requested array size exceeds
//   VM limit`, `GC overhead limit exceeded`; JDK 7's `PermGen space`,
//   https://github.com/openjdk/jdk7u/blob/master/hotspot/src/share/vm/memory/universe.cpp);
// - a thread the OS refused, https://github.com/openjdk/jdk/blob/master/src/hotspot/share/prims/jvm.cpp
//   (`unable to create native thread: possibly out of memory or process/resource limits
//   reached`; before JDK 11 `unable to create new native thread`,
//   https://github.com/openjdk/jdk7u/blob/master/hotspot/src/share/vm/prims/jvm.cpp);
// - direct buffers, java.nio.Bits (before JDK 17: `Direct buffer memory`,
//   https://github.com/openjdk/jdk7u/blob/master/jdk/src/share/classes/java/nio/Bits.java);
// - the list Oracle documents, https://docs.oracle.com/javase/8/docs/technotes/guides/troubleshoot/memleaks002.html
//   and https://docs.oracle.com/en/java/javase/17/troubleshoot/troubleshooting-memory-leaks.html.
// A StackOverflowError has no such reason: HotSpot throws it without a message.

export const outOfMemoryError = 'java.lang.OutOfMemoryError'

/** The JDK's fixed OutOfMemoryError detail messages, longest first (a line ends with at most one). */
export const jvmReasons: readonly string[] = [
  'unable to create native thread: possibly out of memory or process/resource limits reached',
  'Java heap space: failed reallocation of scalar replaced objects',
  'Requested array size exceeds VM limit',
  'unable to create new native thread',
  'GC overhead limit exceeded',
  'Compressed class space',
  'Direct buffer memory',
  'Java heap space',
  'PermGen space',
  'Metaspace',
]

// The same holds for the message the JDK's Windows socket code gives a refused connect: it
// throws ConnectException with winsock's text for WSAECONNREFUSED and the call's name,
// `Connection refused: connect` (NET_ThrowNew's "%s: %s",
// https://github.com/openjdk/jdk7u/blob/9df8d89113c03f5db54e7da1a1abdee8b430b916/jdk/src/windows/native/java/net/net_util_md.c,
// called with "connect" by
// https://github.com/openjdk/jdk7u/blob/88433586452e4ac39b829177c7bc1e39973bfa98/jdk/src/windows/native/java/net/DualStackPlainSocketImpl.c);
// an XXL-JOB executor logs only `getMessage()` of it.
export const connectException = 'java.net.ConnectException'
const jdkMessages: ReadonlyArray<readonly [cls: string, reason: string]> = [
  ...jvmReasons.map((reason) => [outOfMemoryError, reason] as const),
  [connectException, 'Connection refused: connect'],
]

/** The candidate words (case folded) that find a line holding one of them. */
export const jvmReasonWords: readonly string[] = [
  'connection refused: connect',
  'java heap space',
  'metaspace',
  'compressed class space',
  'permgen space',
  'requested array size exceeds vm limit',
  'gc overhead limit exceeded',
  'native thread',
  'direct buffer memory',
]

export interface ReasonAt {
  class: string
  message: string
  /** Where the reason starts on the line: what is before it is the log record's prefix. */
  start: number
}

/** What ends a log record's prefix before its message: `] `, ` - `, `: `, `| `, `> `, `) `. */
const prefixEnds = new Set([']', '-', ':', '|', '>', ')'])
const suffixes = ['Error', 'Exception', 'Throwable']

/**
 * The OutOfMemoryError whose reason is the whole message of `text`: the line ends with one
 * of the JDK's reasons, and what precedes it is nothing or a log record's prefix (ending in
 * `]`, `-`, `:`, `|`, `>` or `)`), never words (`give it more Java heap space`) and never the
 * class itself (`OutOfMemoryError: Java heap space` is the class's own line, read as such).
 */
export function jvmReasonAt(text: string): ReasonAt | null {
  const line = text.trimEnd()
  const found = jdkMessages.find(([, r]) => line.endsWith(r))
  if (found === undefined) return null
  const [cls, reason] = found
  const start = line.length - reason.length
  const before = line.slice(0, start)
  if (before.length > 0 && before.trimEnd().length === before.length) return null
  const prefix = before.trimEnd()
  if (prefix.length > 0 && !prefixEnds.has(prefix[prefix.length - 1] as string)) return null
  return namesClass(prefix) ? null : { class: cls, message: reason, start }
}

/** A class printed before its reason (`OutOfMemoryError: `, unqualified): the class's own line, not a bare reason. */
function namesClass(prefix: string): boolean {
  if (!prefix.endsWith(':')) return false
  const name = prefix.slice(0, -1).trimEnd()
  return suffixes.some(
    (suffix) => name.endsWith(suffix) && isIdentifierChar(name.charCodeAt(name.length - suffix.length - 1)),
  )
}
