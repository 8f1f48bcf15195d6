import { AhoCorasick } from './aho-corasick.js'
import type { Pattern } from './pattern.js'
import { requiredLiterals } from './required-literals.js'

export interface PatternEntry {
  /** What a match reports: a built-in branch or `custom-<id>`; several patterns may share one. */
  key: string
  pattern: Pattern
}

export interface PatternMatch {
  /** 1-based line number of the first match in the excerpt. */
  line: number
  /** That line, cut to 500 characters. */
  text: string
}

type Trigger = { kind: 'literal'; entry: number; text: string } | { kind: 'required'; entry: number }

/** A regular expression runs when, for one of its alternatives, every required literal occurred. */
interface Prefilter {
  entry: number
  alternatives: number[][] // word ids
}

/**
 * Which patterns of the catalogue match an evidence excerpt, computed once per excerpt
 * rather than one scan per rule: one Aho-Corasick pass finds every literal pattern and
 * every literal a regular expression requires; only regular expressions whose required
 * literal occurs (or that have none) then run. Immutable: a new catalogue builds a new one.
 */
export class PatternIndex {
  private readonly automaton: AhoCorasick
  private readonly triggers: Trigger[] = []
  private readonly alwaysRun: number[] = []
  private readonly prefilters: Prefilter[] = []

  constructor(private readonly entries: readonly PatternEntry[]) {
    const words: string[] = []
    entries.forEach((entry, index) => {
      const { pattern } = entry
      if (pattern.kind === 'literal') {
        words.push(pattern.text)
        this.triggers.push({ kind: 'literal', entry: index, text: pattern.text })
        return
      }
      const alternatives = requiredLiterals(pattern.source, pattern.flags)
      if (alternatives === null) {
        this.alwaysRun.push(index)
        return
      }
      const ids = alternatives.map((literals) =>
        literals.map((literal) => {
          words.push(literal)
          this.triggers.push({ kind: 'required', entry: index })
          return words.length - 1
        }),
      )
      this.prefilters.push({ entry: index, alternatives: ids })
    })
    this.automaton = new AhoCorasick(words)
  }

  scan(text: string): Map<string, PatternMatch> {
    const found = new Map<string, number>() // key -> offset of its first match
    const seenWords = new Set<number>()
    this.automaton.scan(text, (id, start) => {
      const trigger = this.triggers[id] as Trigger
      if (trigger.kind === 'required') {
        seenWords.add(id)
        return undefined
      }
      const { key } = this.entries[trigger.entry] as PatternEntry
      const known = found.get(key)
      if ((known === undefined || start < known) && text.startsWith(trigger.text, start)) found.set(key, start)
      return undefined
    })
    const candidates = [...this.alwaysRun]
    for (const { entry, alternatives } of this.prefilters) {
      if (alternatives.some((ids) => ids.every((id) => seenWords.has(id)))) candidates.push(entry)
    }
    for (const index of candidates) {
      const { key, pattern } = this.entries[index] as PatternEntry
      if (pattern.kind !== 'regex') continue
      const match = pattern.regex.exec(text)
      const known = found.get(key)
      if (match && (known === undefined || match.index < known)) found.set(key, match.index)
    }
    return locate(text, found)
  }
}

/** Turns offsets into line numbers and line texts with one pass over the newlines. */
function locate(text: string, offsets: Map<string, number>): Map<string, PatternMatch> {
  const result = new Map<string, PatternMatch>()
  if (offsets.size === 0) return result
  const sorted = [...offsets].sort((a, b) => a[1] - b[1])
  let line = 1
  let lineStart = 0
  for (const [key, offset] of sorted) {
    for (let nl = text.indexOf('\n', lineStart); nl !== -1 && nl < offset; nl = text.indexOf('\n', lineStart)) {
      line++
      lineStart = nl + 1
    }
    const end = text.indexOf('\n', lineStart)
    result.set(key, { line, text: text.slice(lineStart, end === -1 ? undefined : end).slice(0, 500) })
  }
  return result
}
