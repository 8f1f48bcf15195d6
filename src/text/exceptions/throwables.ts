import { codesIn } from './codes.js'
import { readerBounds, type ThrowableText } from './records.js'
import { type ClassAt, messageAfter, nestedCauseAt, throwableAt } from './throwable-names.js'

// Throwables as the reader builds them (read-exceptions.ts) and finishes them into records.

/** A throwable while its trace is read: its message grows with continuation lines. */
export interface Building {
  class: string | null
  message: string
  frames: string[]
  /** Read from another throwable's message (`…Exception: java.net.ConnectException: …`), not from its own line. */
  implied?: boolean
  /** Its class was not printed but inferred from its line's layout and frames (nameless-causes.ts). */
  inferred?: boolean
}

/**
 * The throwable at `at` and the causes its message prints (`…: java.net.ConnectException:
 * Connection refused`, `nested exception is …`, whose class may have no suffix:
 * throwable-names.ts, `nestedCauseAt`). Spring's bean wrappers nest four or five deep
 * on one line before the cause that decides (`…; nested exception is
 * java.lang.NoClassDefFoundError: …`), so up to twice a record's bound of causes is read; the
 * record then keeps the outermost and the deepest of them (`bound`).
 */
const impliedChain = readerBounds.causes * 2
export function implied(text: string, at: ClassAt): Building[] {
  const chain: Building[] = []
  for (
    let current: ClassAt | null = at;
    current && chain.length < impliedChain;
    current = nextCauseAt(text, current.end)
  ) {
    chain.push({ class: current.name, message: messageAfter(text, current.end), frames: [], implied: chain.length > 0 })
  }
  return chain
}

/** The next cause printed after `from`: a suffixed class name, or the class Spring's marker names. */
function nextCauseAt(text: string, from: number): ClassAt | null {
  const named = throwableAt(text, from)
  const nested = nestedCauseAt(text, from)
  return nested && (!named || nested.start < named.start) ? nested : named
}

export const cut = (text: string, chars: number) => (text.length > chars ? text.slice(0, chars) : text)

/**
 * A message cut to its bound in the middle: its end often holds what decides (an
 * executor's state, `[Terminated, pool size = 0, …]`, after a long task description).
 */
export function cutMessage(text: string): string {
  const max = readerBounds.messageChars
  if (text.length <= max) return text
  const tail = Math.floor(max / 3)
  return `${text.slice(0, max - tail - 3)} … ${text.slice(-tail)}`
}

/** The codes are read from the whole message, before it is cut. */
export function finish({ implied: _, inferred: __, ...throwable }: Building): ThrowableText {
  return { ...throwable, message: cutMessage(throwable.message), ...codesIn(cut(throwable.message, 2000)) }
}

/** A chain longer than the bound keeps its two outermost causes and its deepest ones. */
export function bound(causes: ThrowableText[]): ThrowableText[] {
  if (causes.length <= readerBounds.causes) return causes
  return [...causes.slice(0, 2), ...causes.slice(causes.length - (readerBounds.causes - 2))]
}

/** A record's codes: the deepest throwable's that carries each. */
export function deepestCodes(head: ThrowableText, causes: readonly ThrowableText[]) {
  const deepestFirst = [...causes].reverse().concat(head)
  return {
    sqlState: deepestFirst.find((t) => t.sqlState)?.sqlState ?? null,
    vendorCode: deepestFirst.find((t) => t.vendorCode)?.vendorCode ?? null,
    errno: deepestFirst.find((t) => t.errno)?.errno ?? null,
  }
}
