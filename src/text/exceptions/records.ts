// What the exception reader (read-exceptions.ts) finds in a log excerpt: small, bounded
// records that cross from an analysis thread to the rules (docs/design.md, "Exceptions and codes").

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error'

export type Vendor = 'oracle' | 'db2' | 'mysql' | 'sqlserver' | 'postgresql' | 'h2'

/** A database's own error code: `ORA-00060` (Oracle), `-911` (DB2 SQLCODE), `1213`. */
export interface VendorCode {
  /** Null when the line does not say whose code it is (`SQL Error: 1213`): the classes may. */
  vendor: Vendor | null
  code: string
}

/** The standard codes a message carries; they stay the same when the message is localised. */
export interface Codes {
  /** The five-character SQLSTATE (ISO/IEC 9075, SQL:2016 Part 2, subclause 24.1). */
  sqlState: string | null
  vendorCode: VendorCode | null
  /** The POSIX errno name (`ECONNREFUSED`), written as a name or as its C library message. */
  errno: string | null
}

/** One throwable of a record: the logged one, or a cause, or a suppressed one. */
export interface ThrowableText extends Codes {
  /** The class as printed (`io.netty.channel.AbstractChannel$AnnotatedConnectException`); null for a line that carries only a code. */
  class: string | null
  /** Its message, cut in the middle to `readerBounds.messageChars`; '' when it has none. */
  message: string
  /** The component packages (the reader's `componentPrefixes`) its stack frames run in, in order. */
  frames: string[]
}

/** An exception as a log shows it: the logged throwable, its `Caused by:` chain, its suppressed ones. */
export interface ExceptionRecord extends ThrowableText {
  /** 1-based line of the excerpt where it starts. */
  line: number
  /** The last line of its trace (the same line for a record on one line). */
  end: number
  /**
   * The line that logged the trace, when the trace starts a line of its own under it (a
   * logger's `ERROR … - Application run failed`, then the exception): what that line says is
   * about this exception. Null when the record's own line carries its level, or nothing precedes it.
   */
  owner: number | null
  /** That line, cut to 500 characters (what a report shows). */
  text: string
  /** The level it was logged at, when the line or the record that owns the trace says. */
  level: LogLevel | null
  /** The log says the operation will be retried: the failure is not final on its own. */
  retried: boolean
  /**
   * A class was not printed but inferred from a message: the line holds only a message that
   * this class alone is thrown with (`Java heap space` is an OutOfMemoryError's,
   * jvm-reasons.ts; the SQL Server driver's `R_tcpipConnectionFailed` in any of its
   * languages, driver-messages.ts), or a wrapper's message quotes a cause the log does not
   * show (a host name alone is an UnknownHostException's, quoted-causes.ts), or a cause's
   * line prints no class because its toString() omits it (Paho's MqttException,
   * nameless-causes.ts). Such a record
   * counts for a finding but never corroborates one: a bare message is weaker than the class.
   */
  classFromReason?: true
  /** Outermost first; the last is the deepest cause the log shows. */
  causes: ThrowableText[]
  suppressed: ThrowableText[]
}

/** Bounds on what the reader returns (docs/design.md, "Exceptions and codes"). */
export const readerBounds = {
  /** Records kept: the first quarter and the rest from the end of the excerpt. */
  records: 64,
  /** Causes kept of a longer chain: the outermost two and the deepest ones. */
  causes: 8,
  suppressed: 4,
  messageChars: 300,
  lineChars: 500,
  /** Component packages noted per throwable. */
  frames: 4,
  /** Lines of one trace walked (frames included) before the record is closed. */
  traceLines: 4096,
  /** Lines after a header, before its first frame, that continue its message. */
  continuationLines: 3,
  /** Unindented lines of a message's own paragraphs, when the trace goes on after them (H2's). */
  messageLines: 8,
} as const
