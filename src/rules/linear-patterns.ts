import {
  anyChar,
  type CharSet,
  caseFolded,
  charSet,
  complement,
  digits,
  intersection,
  isEmpty,
  lineTerminators,
  meet,
  single,
  spaces,
  union,
  wordChars,
} from './char-sets.js'

// A proof that a flat regular expression backtracks in linear time, which spares it
// recheck's own analysis (docs/design.md, "What a rule may cost"). Flat: a sequence (or
// top-level alternatives of sequences) of characters, classes and assertions, each
// character or class with any quantifier, and groups of alternatives of characters,
// optional at most; no back-reference, look-around or nested quantifier. Anything else
// returns false here and goes to recheck.
//
// A JavaScript RegExp searches by trying a match at every position, as if the pattern began
// with a loop over every character. Backtracking becomes super-linear only through two
// loops that can trade the same text (recheck's IDA, a polynomial) or one loop with two ways
// around it (EDA, an exponential). In a flat pattern every loop is one character set
// repeated, so there is no second way around a loop; and two loops p, q can trade a text w
// only if w's characters lie in both sets and every part of the pattern between them that
// must read a character can read one of them. So: if, for every two loops (the search's
// own included), some part between them must read a character outside both sets, no text
// makes the backtracking super-linear, and recheck's automaton checker, which decides
// exactly these ambiguities, finds none. A bounded repetition is taken for a loop (see
// loopsSeparated), and the ways its counts and the groups multiply at one position are
// bounded too. `test/unit/linear-patterns.test.ts` holds recheck to every pattern this
// proves, on random flat patterns, and on the patterns recheck refuses in
// `test/unit/pattern-safety.test.ts`.

/** One part of a flat sequence: a character set read `min` to `max` times, or a group. */
export type Item =
  | { kind: 'set'; set: CharSet; min: number; max: number }
  | { kind: 'group'; alternatives: CharSet[][]; optional: boolean }

/** The most ways a flat pattern may try at one position: its bounded quantifiers and groups multiplied. */
export const maxWaysAtAPosition = 1000

/** Whether `source` with `flags` is flat and provably linear; false when it is not, or not provably. */
export function provenLinear(source: string, flags: string): boolean {
  const sequences = flatSequences(source, flags)
  if (!sequences) return false
  let ways = 0
  for (const items of sequences) {
    if (!loopsSeparated(items)) return false
    ways += waysOf(items)
  }
  return ways <= maxWaysAtAPosition
}

/** The top-level alternatives of a flat expression (assertions left out), or null outside the subset. */
export function flatSequences(source: string, flags: string): Item[][] | null {
  return /^[ims]*$/.test(flags) ? new FlatParser(source, flags).parse() : null
}

function loopsSeparated(items: readonly Item[]): boolean {
  // The search's own loop over every character comes before the first item.
  const loops: Array<{ at: number; set: CharSet }> = [{ at: -1, set: anyChar }]
  // A bounded repetition counts as a loop too: above 30 repetitions in all recheck fuzzes
  // instead of building its automaton, and refuses `X[^\n]{0,200}Y` as polynomial (it is,
  // for texts shorter than its bound), which a loop there would be.
  items.forEach((item, at) => {
    if (item.kind === 'set' && item.max >= 2) loops.push({ at, set: item.set })
  })
  for (const [k, p] of loops.entries()) {
    for (const q of loops.slice(k + 1)) {
      const shared = intersection(p.set, q.set)
      if (isEmpty(shared)) continue
      if (!items.slice(p.at + 1, q.at).some((item) => mustReadOutside(item, shared))) return false
    }
  }
  return true
}

/** Whether every way through the item reads at least one character outside `shared`. */
function mustReadOutside(item: Item, shared: CharSet): boolean {
  if (item.kind === 'set') return item.min >= 1 && !meet(item.set, shared)
  return !item.optional && item.alternatives.every((sets) => sets.some((set) => !meet(set, shared)))
}

function waysOf(items: readonly Item[]): number {
  let ways = 1
  for (const item of items) {
    if (item.kind === 'group') ways *= item.alternatives.length + (item.optional ? 1 : 0)
    else if (item.max !== Number.POSITIVE_INFINITY) ways *= item.max - item.min + 1
    if (ways > maxWaysAtAPosition) return ways
  }
  return ways
}

const quantifier = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})(\??)/

const classEscapes: Record<string, CharSet> = {
  d: digits,
  D: complement(digits),
  w: wordChars,
  W: complement(wordChars),
  s: spaces,
  S: complement(spaces),
}
const controlEscapes: Record<string, number> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d }

/** A parser of the flat subset; `parse` returns null for anything outside it. */
class FlatParser {
  private at = 0
  private readonly ignoreCase: boolean
  private readonly dotAll: boolean

  constructor(
    private readonly source: string,
    flags: string,
  ) {
    this.ignoreCase = flags.includes('i')
    this.dotAll = flags.includes('s')
  }

  parse(): Item[][] | null {
    const sequences: Item[][] = [[]]
    while (this.at < this.source.length) {
      const c = this.source[this.at] as string
      if (c === '|') {
        this.at++
        sequences.push([])
        continue
      }
      const item = c === '(' ? this.group() : this.quantified()
      if (item === null) return null
      if (item !== 'assertion') (sequences[sequences.length - 1] as Item[]).push(item)
    }
    return sequences
  }

  private quantified(): Item | 'assertion' | null {
    const atom = this.atom()
    const q = quantifier.exec(this.source.slice(this.at))
    if (atom === 'assertion') return q ? null : atom
    if (atom === null) return null
    if (!q) return { kind: 'set', set: atom, min: 1, max: 1 }
    this.at += q[0].length
    const [, symbol, n, comma, m] = q
    if (symbol === '*') return { kind: 'set', set: atom, min: 0, max: Number.POSITIVE_INFINITY }
    if (symbol === '+') return { kind: 'set', set: atom, min: 1, max: Number.POSITIVE_INFINITY }
    if (symbol === '?') return { kind: 'set', set: atom, min: 0, max: 1 }
    const min = Number(n)
    const max = comma === undefined ? min : m === '' ? Number.POSITIVE_INFINITY : Number(m)
    return { kind: 'set', set: atom, min, max }
  }

  /** `(…|…)`, `(?:…|…)` or `(?<name>…|…)` of characters and classes, then nothing or `?`. */
  private group(): Item | null {
    const rest = this.source.slice(this.at)
    const open = /^\((?:\?:|\?<[A-Za-z_$][\w$]*>)?/.exec(rest)
    if (!open || rest.startsWith('(?=') || rest.startsWith('(?!') || rest.startsWith('(?<=') || rest.startsWith('(?<!'))
      return null
    this.at += open[0].length
    const alternatives: CharSet[][] = [[]]
    for (;;) {
      const c = this.source[this.at]
      if (c === undefined) return null
      if (c === ')') break
      if (c === '|') {
        this.at++
        alternatives.push([])
        continue
      }
      if (c === '(') return null
      const atom = this.atom()
      if (atom === null) return null
      if (atom === 'assertion') continue
      // A quantifier inside a group makes it more than characters and classes.
      if (quantifier.test(this.source.slice(this.at))) return null
      ;(alternatives[alternatives.length - 1] as CharSet[]).push(atom)
    }
    this.at++ // ')'
    const q = quantifier.exec(this.source.slice(this.at))
    if (!q) return { kind: 'group', alternatives, optional: false }
    if (q[1] !== '?') return null
    this.at += q[0].length
    return { kind: 'group', alternatives, optional: true }
  }

  /** One character's set, an assertion (which reads nothing), or null outside the subset. */
  private atom(): CharSet | 'assertion' | null {
    const c = this.source[this.at] as string
    this.at++
    if (c === '^' || c === '$') return 'assertion'
    if (c === '.') return this.folded(this.dotAll ? anyChar : complement(lineTerminators))
    if (c === '[') return this.charClass()
    if (c === '\\') {
      const escaped = this.escape(false)
      return escaped === null || escaped === 'assertion' ? escaped : this.folded(escaped)
    }
    if (c === '*' || c === '+' || c === '?' || c === ')' || c === '(' || c === '|') return null
    // Annex B reads a `{` that opens no quantifier as itself; one that does has nothing to repeat.
    if (c === '{' && quantifier.test(this.source.slice(this.at - 1))) return null
    return this.folded(single(c.charCodeAt(0)))
  }

  private charClass(): CharSet | null {
    const negated = this.source[this.at] === '^'
    if (negated) this.at++
    const parts: CharSet[] = []
    for (;;) {
      const c = this.source[this.at]
      if (c === undefined) return null
      if (c === ']') break
      const from = this.classAtom()
      if (from === null) return null
      if (this.source[this.at] === '-' && this.source[this.at + 1] !== ']' && this.at + 1 < this.source.length) {
        this.at++
        const to = this.classAtom()
        // A range needs single characters at both ends (Annex B's other readings are left to recheck).
        if (to === null || typeof from !== 'number' || typeof to !== 'number' || from > to) return null
        parts.push([[from, to]])
      } else parts.push(typeof from === 'number' ? single(from) : from)
    }
    this.at++ // ']'
    const positive = union(...parts)
    // Under `i`, a negated class matches at most what the unfolded one's complement holds.
    return negated ? complement(positive) : this.folded(positive)
  }

  /** A code unit, or a set for `\d`, `\w`, `\s` and their complements. */
  private classAtom(): number | CharSet | null {
    const c = this.source[this.at] as string
    this.at++
    if (c !== '\\') return c.charCodeAt(0)
    const escaped = this.escape(true)
    if (escaped === null || escaped === 'assertion') return null
    const [only] = escaped
    return escaped.length === 1 && only !== undefined && only[0] === only[1] ? only[0] : escaped
  }

  /** After a backslash: a set (not folded), an assertion (`\b`, `\B` outside classes), or null. */
  private escape(inClass: boolean): CharSet | 'assertion' | null {
    const c = this.source[this.at]
    if (c === undefined) return null
    this.at++
    const set = classEscapes[c]
    if (set) return set
    if (c === 'b') return inClass ? single(0x08) : 'assertion'
    if (c === 'B') return inClass ? null : 'assertion'
    const control = controlEscapes[c]
    if (control !== undefined) return single(control)
    if (c === '0' && !/[0-9]/.test(this.source[this.at] ?? '')) return single(0)
    const code = (c === 'x' ? /^[0-9a-fA-F]{2}/ : c === 'u' ? /^[0-9a-fA-F]{4}/ : null)?.exec(
      this.source.slice(this.at),
    )
    if (code) {
      this.at += code[0].length
      return single(Number.parseInt(code[0], 16))
    }
    // Back-references, octal escapes, `\c`, `\k`, and the other letters' Annex B readings are left to recheck.
    if (/[0-9A-Za-z]/.test(c)) return null
    return single(c.charCodeAt(0))
  }

  private folded(set: CharSet): CharSet {
    return this.ignoreCase ? caseFolded(set) : charSet(set)
  }
}
