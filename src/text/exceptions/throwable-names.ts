// Exception class names as a log prints them, found by hand rather than by a regular
// expression: `[\w$]*(?:Exception|Error)` backtracks on long identifiers, and this runs on
// every candidate line of a 512 KiB excerpt.

export interface ClassAt {
  name: string
  start: number
  end: number
}

// SOAP stacks name their throwables `…Fault`: CXF's `Fault` and `SoapFault`
// (https://cxf.apache.org/javadoc/latest/org/apache/cxf/interceptor/Fault.html), Axis2's
// `AxisFault` (https://axis.apache.org/axis2/java/core/api/org/apache/axis2/AxisFault.html).
const suffixes = ['Exception', 'Error', 'Throwable', 'Fault'] as const
/** At most this many suffix occurrences are looked at on one line. */
const maxTries = 16

const code = (text: string, i: number) => text.charCodeAt(i)
const isLower = (c: number) => c >= 97 && c <= 122
const isUpper = (c: number) => c >= 65 && c <= 90
/** A character of a Java identifier (ASCII letters, digits, `_`, `$`), by its code. */
export const isIdentifierChar = (c: number) => isLower(c) || isUpper(c) || (c >= 48 && c <= 57) || c === 95 || c === 36
/** What may follow a class name printed as an exception: end, `: message`, or closing punctuation. */
const terminators = new Set([':', '"', "'", '>', ']', ')', ';', ',', '}', '|', '\\'])

/** `pkg.sub.Name` or `pkg.Outer$Inner`: a package of lower-case segments, a class that starts upper-case. */
function isQualified(name: string): boolean {
  const segments = name.split('.')
  if (segments.length < 2 || segments.some((s) => s.length === 0)) return false
  const last = segments[segments.length - 1] as string
  return isLower(code(segments[0] as string, 0)) && isUpper(code(last, 0))
}

/** Whether the name at [start, end) stands as a printed exception does: followed by nothing, `:` or punctuation. */
function standsAlone(text: string, end: number): boolean {
  if (end >= text.length) return true
  const c = text[end] as string
  if (terminators.has(c)) return true
  // JBoss MSC prints its StartException as `…StartException in service jboss.x: message`.
  if (text.startsWith(' in service ', end)) return true
  if (c !== ' ' && c !== '\t' && c !== '\r') return false
  let i = end
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++
  return i === text.length || text[i] === ':'
}

/**
 * The first qualified throwable class name in `text` at or after `from` that stands as an
 * exception is printed (`java.net.ConnectException: Connection refused`, or alone at the
 * end). Not a frame (`…Exception.<init>(`), a logger (`…ExceptionHelper`), a flag
 * (`-XX:+HeapDumpOnOutOfMemoryError`) or a path (`/lib/foo.Error`).
 */
export function throwableAt(text: string, from = 0): ClassAt | null {
  let cursor = from
  for (let tries = 0; tries < maxTries; tries++) {
    let at = -1
    let suffix = ''
    for (const s of suffixes) {
      const i = text.indexOf(s, cursor)
      if (i !== -1 && (at === -1 || i < at)) {
        at = i
        suffix = s
      }
    }
    if (at === -1) return null
    const end = at + suffix.length
    cursor = end
    const next = code(text, end)
    if (isIdentifierChar(next) || next === 46) continue // `Errors$…`, `Exception.<init>`
    let start = at
    while (start > 0 && (isIdentifierChar(code(text, start - 1)) || code(text, start - 1) === 46)) start--
    const jruby = jrubyNameAt(text, start, end)
    if (jruby) {
      if (standsAlone(text, end)) return jruby
      continue
    }
    const name = text.slice(start, end)
    if (!isQualified(name) || text[start - 1] === '/' || text[start - 1] === '-' || text[start - 1] === '+') continue
    if (standsAlone(text, end)) return { name, start, end }
  }
  return null
}

// Spring's nested exceptions (NestedRuntimeException, NestedCheckedException before 6.0) end
// their message with `nested exception is ` and their cause's `toString()`, which starts with
// the cause's class name whatever that name ends with (`NestedExceptionUtils.buildMessage`,
// spring-core/src/main/java/org/springframework/core/NestedExceptionUtils.java in
// https://github.com/spring-projects/spring-framework; `Throwable.toString`). A client's
// inner class such as `com.aerospike.client.AerospikeException$Connection` has no suffix.
const nestedMarker = 'nested exception is '

/** The class Spring's `nested exception is ` names at or after `from`, whatever its suffix. */
export function nestedCauseAt(text: string, from = 0): ClassAt | null {
  const marker = text.indexOf(nestedMarker, from)
  if (marker === -1) return null
  const start = marker + nestedMarker.length
  let end = start
  while (end < text.length && (isIdentifierChar(code(text, end)) || code(text, end) === 46)) end++
  const name = text.slice(start, end)
  return isQualified(name) && standsAlone(text, end) ? { name, start, end } : null
}

/** At most this many `::` modules of a JRuby name are walked back over. */
const maxModules = 8

/**
 * A Java class as JRuby prints it (Logstash's plugins): `Java::JavaSql::SQLRecoverableException`
 * is `java.sql.SQLRecoverableException`, its package's segments capitalised and run together
 * (https://github.com/jruby/jruby/wiki/CallingJavaFromJRuby). Null unless the simple name at
 * [start, end) follows `Java::` and at least one package module.
 */
function jrubyNameAt(text: string, start: number, end: number): ClassAt | null {
  const modules: string[] = []
  let at = start
  while (modules.length < maxModules && text.startsWith('::', at - 2)) {
    let from = at - 2
    while (from > 0 && isAlphanumeric(code(text, from - 1))) from--
    if (from === at - 2) return null
    modules.unshift(text.slice(from, at - 2))
    at = from
  }
  if (modules[0] !== 'Java' || modules.length < 2) return null
  const pkg = modules.slice(1).map(packageOfModule).join('.')
  return { name: `${pkg}.${text.slice(start, end)}`, start: at, end }
}

const isAlphanumeric = (c: number) => isLower(c) || isUpper(c) || (c >= 48 && c <= 57)

/** `JavaSql` -> `java.sql`: a segment starts at each capital. */
function packageOfModule(module: string): string {
  let pkg = ''
  for (let i = 0; i < module.length; i++) {
    const c = module[i] as string
    pkg += isUpper(code(module, i)) ? `${i > 0 ? '.' : ''}${c.toLowerCase()}` : c
  }
  return pkg
}

/** The message after a class name: the text after its `: `, trimmed. */
export function messageAfter(text: string, end: number): string {
  let i = end
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++
  if (text[i] !== ':') return ''
  return text.slice(i + 1).trim()
}
