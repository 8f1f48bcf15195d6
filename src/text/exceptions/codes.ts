import { errnoNumbers, errnoTexts } from './errno-texts.js'
import type { Codes, Vendor, VendorCode } from './records.js'

// The standard codes in a message: SQLSTATE, a database vendor's code, an errno. Codes stay
// the same when a server or driver localises its message, so they are read whatever the
// language around them. Plain index searches over a short message: no regular expression.

const errnoNames = [...new Set(errnoTexts.map(([name]) => name))]

const noCodes: Codes = { sqlState: null, vendorCode: null, errno: null }

const isDigit = (c: number) => c >= 48 && c <= 57
const isUpper = (c: number) => c >= 65 && c <= 90
const isLetter = (c: number) => isUpper(c) || (c >= 97 && c <= 122)
const isWordChar = (c: number) => isLetter(c) || isDigit(c) || c === 95

/** The codes in a message. Cheap when there are none: a few searches of a short string. */
export function codesIn(text: string): Codes {
  if (text.length === 0) return noCodes
  const errno = errnoIn(text)
  // SQLSTATEs and vendor codes hold digits (an SQLSTATE may be all letters and digits, never without one).
  if (!/\d/.test(text)) return errno ? { ...noCodes, errno } : noCodes
  const lower = text.toLowerCase()
  return {
    sqlState: sqlStateIn(text, lower) ?? mysqlClientState(text, lower),
    vendorCode: vendorCodeIn(text, lower),
    errno,
  }
}

/** After `from`, skips up to four separators (` :=[(`), then reads what `read` accepts. */
function after(text: string, from: number, read: (text: string, at: number) => string | null): string | null {
  let at = from
  for (let n = 0; n < 4 && at < text.length && ' :=[(#'.includes(text[at] as string); n++) at++
  return read(text, at)
}

/** Five characters of digits and upper-case letters, not followed by another word character. */
function sqlStateAt(text: string, at: number): string | null {
  const code = text.slice(at, at + 5).toUpperCase()
  if (code.length !== 5) return null
  for (let i = 0; i < 5; i++) {
    const c = code.charCodeAt(i)
    if (!isDigit(c) && !isUpper(c)) return null
  }
  return isWordChar(text.charCodeAt(at + 5)) ? null : code
}

/** An optionally signed integer of up to 6 digits. */
function integerAt(text: string, at: number): string | null {
  let end = at
  if (text[end] === '-') end++
  const digits = end
  while (end < text.length && end - digits < 7 && isDigit(text.charCodeAt(end))) end++
  if (end === digits || end - digits > 6 || isWordChar(text.charCodeAt(end))) return null
  return text.slice(at, end)
}

/** `SQLState: 40001`, `SQL state [40001]`, `SQLSTATE=40001`, `sqlstate 40001`. */
function sqlStateIn(text: string, lower: string): string | null {
  for (const label of ['sqlstate', 'sql state', 'sql-state']) {
    for (let i = lower.indexOf(label); i !== -1; i = lower.indexOf(label, i + 1)) {
      if (i > 0 && isLetter(lower.charCodeAt(i - 1))) continue
      const code = after(text, i + label.length, sqlStateAt)
      if (code) return code
    }
  }
  return null
}

/** The MySQL client's `ERROR 1040 (08004): Too many connections` carries both codes. */
function mysqlClientState(text: string, lower: string): string | null {
  const at = mysqlClientAt(lower)
  return at === -1 ? null : sqlStateAt(text, lower.indexOf('(', at) + 1)
}

function mysqlClientAt(lower: string): number {
  for (let i = lower.indexOf('error '); i !== -1; i = lower.indexOf('error ', i + 1)) {
    const code = integerAt(lower, i + 6)
    if (code && code.length === 4 && lower.startsWith(' (', i + 10)) return i
  }
  return -1
}

/** Labels of a vendor code: where the code follows, and whose it is when the label says. */
const vendorLabels: ReadonlyArray<readonly [label: string, vendor: Vendor | null]> = [
  ['sqlcode', 'db2'],
  ['errorcode=', 'db2'], // DB2 JCC: `ERRORCODE=-4499, SQLSTATE=08001`
  ['errorcode', null], // HikariCP: `marked as broken because of SQLSTATE(08006), ErrorCode(0)`
  ['sql error', null], // Hibernate: `SQL Error: 1213, SQLState: 40001`
  ['sql warning code', null], // Hibernate: `SQL Warning Code: 1213, SQLState: 41000`
  ['error code', null], // Spring: `error code [1213]`; EclipseLink: `Error Code: 1213`
]

function vendorCodeIn(text: string, lower: string): VendorCode | null {
  const oracle = oracleCodeIn(lower)
  if (oracle) return { vendor: 'oracle', code: oracle }
  const h2 = h2CodeIn(text)
  if (h2) return { vendor: 'h2', code: h2 }
  for (const [label, vendor] of vendorLabels) {
    for (let i = lower.indexOf(label); i !== -1; i = lower.indexOf(label, i + 1)) {
      if (i > 0 && isLetter(lower.charCodeAt(i - 1))) continue
      const code = after(text, i + label.length, integerAt)
      if (code) return { vendor, code }
    }
  }
  const mysql = mysqlClientAt(lower)
  if (mysql !== -1) return { vendor: 'mysql', code: lower.slice(mysql + 6, mysql + 10) }
  const msg = lower.indexOf('msg ') // SQL Server: `Msg 1205, Level 13, State 51`
  if (msg !== -1) {
    const code = integerAt(lower, msg + 4)
    if (code && lower.startsWith(', level ', msg + 4 + code.length)) return { vendor: 'sqlserver', code }
  }
  return null
}

/**
 * H2 ends each message with its error code and its build, `[40001-176]`
 * (https://h2database.com/javadoc/org/h2/api/ErrorCode.html): five digits, a dash, the
 * build's digits, in brackets, whatever the language of the message.
 */
function h2CodeIn(text: string): string | null {
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) {
    if (text[i + 6] !== '-' || !allDigits(text, i + 1, i + 6)) continue
    const close = text.indexOf(']', i + 7)
    if (close > i + 7 && close <= i + 11 && allDigits(text, i + 7, close)) return text.slice(i + 1, i + 6)
  }
  return null
}

const allDigits = (text: string, from: number, to: number) => {
  for (let i = from; i < to; i++) if (!isDigit(text.charCodeAt(i))) return false
  return true
}

/** `ORA-00060` or `TNS-12541` (the listener's codes are the same numbers): always `ORA-` and five digits. */
function oracleCodeIn(lower: string): string | null {
  for (const prefix of ['ora-', 'tns-']) {
    for (let i = lower.indexOf(prefix); i !== -1; i = lower.indexOf(prefix, i + 1)) {
      if (i > 0 && isWordChar(lower.charCodeAt(i - 1))) continue
      const digits = lower.slice(i + 4, i + 9)
      if (
        digits.length === 5 &&
        [...digits].every((d) => isDigit(d.charCodeAt(0))) &&
        !isDigit(lower.charCodeAt(i + 9))
      )
        return `ORA-${digits}`
    }
  }
  return null
}

/** An errno name as a word (`ECONNREFUSED`) or a labelled number, else the message the C library or the JDK prints for one. */
function errnoIn(text: string): string | null {
  return errnoCodeIn(text) ?? errnoTexts.find(([, message]) => text.includes(message))?.[0] ?? null
}

/** An errno as a code: its name as a word, or its number after an `errno` label. */
const errnoCodeIn = (text: string): string | null => errnoNameIn(text) ?? errnoNumberIn(text)

/**
 * `errno=24`, `errno: 28`, `[Errno 13]`: the number after an `errno` label (not inside a longer
 * word, such as `lastErrno`), named where Linux and the BSDs agree (errno-texts.ts, `errnoNumbers`).
 */
function errnoNumberIn(text: string): string | null {
  const lower = text.toLowerCase()
  for (let i = lower.indexOf('errno'); i !== -1; i = lower.indexOf('errno', i + 1)) {
    if (isLetter(lower.charCodeAt(i - 1))) continue
    const number = after(lower, i + 5, integerAt)
    if (number) return errnoNumbers[number] ?? null
  }
  return null
}

function errnoNameIn(text: string): string | null {
  for (const name of errnoNames) {
    for (let i = text.indexOf(name); i !== -1; i = text.indexOf(name, i + 1)) {
      if (!isWordChar(text.charCodeAt(i - 1)) && !isWordChar(text.charCodeAt(i + name.length))) return name
    }
  }
  return null
}

/**
 * The codes of a line that names no exception class, when it carries one worth a record of
 * its own: a SQLSTATE, a vendor code, or an errno written as its name or labelled number. An errno's message
 * alone ("Connection refused") on such a line is anybody's wording, not a code.
 */
export function lineCodes(text: string): Codes | null {
  const codes = codesIn(text)
  if (codes.sqlState !== null || codes.vendorCode !== null) return codes
  const errno = errnoCodeIn(text)
  return errno ? { ...codes, errno } : null
}
