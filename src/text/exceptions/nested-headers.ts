import type { Line, Lines } from './lines.js'
import type { ClassAt } from './throwable-names.js'

// MySQL Connector/J 3.x and 5.x quote a nested exception in their own message as a block
// (`Util.stackTraceToString`,
// https://github.com/mysql/mysql-connector-j/blob/5.1/src/com/mysql/jdbc/Util.java):
//
//   ** BEGIN NESTED EXCEPTION **
//   <class>
//   MESSAGE: <getMessage()>
//
//   STACKTRACE:
//
//   <printStackTrace()>
//   ** END NESTED EXCEPTION **
//
// The class and `MESSAGE:` lines are a header of the trace printed under `STACKTRACE:`: the
// same throwable, whose frames (the driver's) say whose failure it is. Read apart, the
// message (`java.net.ConnectException: Connection refused`) would be a throwable of its own
// without the driver's frames, a generic refusal beside the database's.

const messageLabel = 'MESSAGE: '
const traceLabel = 'STACKTRACE:'
/** Lines between the header and `STACKTRACE:`: the block prints one blank line there. */
const maxBlank = 2

/** The text of `line` after the prefix the header's class line has (a build tool's `[ERROR] `), or null. */
function afterPrefix(line: Line, prefix: string): string | null {
  if (line.text.startsWith(prefix)) return line.text.slice(prefix.length).trim()
  return line.text.trimEnd() === prefix.trimEnd() ? '' : null
}

/**
 * When the bare class at `head` opens such a header, the `STACKTRACE:` line that ends it (the
 * trace under it is read as the throwable); otherwise null.
 */
export function nestedHeaderEnd(line: Line, lines: Lines, head: ClassAt): Line | null {
  if (line.text.slice(head.end).trim() !== '') return null
  const prefix = line.text.slice(0, head.start)
  let next = lines.next(line)
  if (next && afterPrefix(next, prefix)?.startsWith(messageLabel)) next = lines.next(next)
  for (let blank = 0; next && blank <= maxBlank; blank++, next = lines.next(next)) {
    const text = afterPrefix(next, prefix)
    if (text === traceLabel) return next
    if (text !== '') return null
  }
  return null
}
