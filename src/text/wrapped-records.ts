import { isFrameSegment } from './stack-frames.js'

// Some servers write one record over several lines where its message holds a newline:
// WebLogic's `####<...>` records, Payara/GlassFish 4+ (`[...] [[` then the message, up to
// `]]`) and GlassFish 3 (`[#|...|#]`). A pattern written against the message as a console
// shows it (`busy for ... seconds working on the request ..., which is more than the
// configured time`) would never match across that newline. The scanner matches a copy in
// which the message lines of such a record are joined by spaces instead (docs/design.md,
// "Multi-line records"). The copy has the same length, so offsets, line numbers and the
// lines a report shows still come from the excerpt as read. A stack trace in the record
// stays on its own lines: frames and `Caused by:` are told apart by line (stack-frames.ts).

const newline = 0x0a
const hash = 0x23
const bracket = 0x5b
/** Record openers that, when absent, mean there is nothing to join (the common case). */
const openers = ['####<', '[#|', '[[\n', '[[\r\n'].map((opener) => Buffer.from(opener))
/** More message lines than this in one record are a log that is not what it looks like. */
const maxJoinedLines = 50

type Kind = 'weblogic' | 'odl' | 'ulf'

/** A line that starts a stack trace or a thread dump: it and the rest of its record stay apart. */
const traceStart =
  /^\s*(?:Caused by: |Suppressed: |"[^"]*".*(?:prio=|daemon|<alive)|(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?<=Exception|Error|Throwable)(?::|\s*$))/

/**
 * The excerpt with the newlines inside wrapped records replaced by spaces, or null when it
 * holds no such record.
 */
export function joinWrappedRecords(bytes: Buffer): Buffer | null {
  if (!mayHoldWrappedRecords(bytes)) return null
  let joined: Buffer | null = null
  let open: Kind | null = null // the record whose message lines are being joined
  let joinedLines = 0
  for (let start = 0; start < bytes.length; ) {
    const nl = bytes.indexOf(newline, start)
    const end = nl === -1 ? bytes.length : nl
    // Outside a message only an opener matters, and every opener starts with `#` or `[`.
    if (open || bytes[start] === hash || bytes[start] === bracket) {
      const line = bytes.toString('latin1', start, Math.min(end, start + 4096))
      const opened = openerKind(line)
      if (opened) {
        open = closes(opened, line, true) ? null : opened
        joinedLines = 0
      } else if (open === 'odl' && /^\s*\]\]\s*$/.test(line)) {
        open = null
      } else if (open) {
        if (traceStart.test(line) || isFrameSegment(line) || joinedLines >= maxJoinedLines) {
          open = null
        } else {
          joined ??= Buffer.from(bytes)
          joined[start - 1] = 0x20 // the newline that ended the previous line of the record
          joinedLines++
          if (closes(open, line, false)) open = null
        }
      }
    }
    if (nl === -1) break
    start = nl + 1
  }
  return joined
}

/** Whether the excerpt has a record opener at all: four byte searches, no decoding. */
export function mayHoldWrappedRecords(bytes: Buffer): boolean {
  return openers.some((opener) => bytes.includes(opener))
}

function openerKind(line: string): Kind | null {
  if (line.startsWith('####<')) return 'weblogic'
  if (line.startsWith('[#|')) return 'ulf'
  if (line.startsWith('[') && /\[\[\r?$/.test(line)) return 'odl'
  return null
}

/** Whether the record's message ends on this line. */
function closes(kind: Kind, line: string, opener: boolean): boolean {
  switch (kind) {
    // `<message>` is the last field: a line that ends with `>` has closed it.
    case 'weblogic':
      return /> ?\r?$/.test(line)
    case 'ulf':
      return line.includes('|#]')
    // The opener ends with `[[`; the message ends at `]]`.
    case 'odl':
      return !opener && /\]\]\r?$/.test(line)
  }
}
