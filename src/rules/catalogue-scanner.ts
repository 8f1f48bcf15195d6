import { candidateWords } from '../text/exceptions/candidates.js'
import { type Excerpt, excerptOfText } from '../text/excerpt.js'
import { type LineRewriter, PatternIndex, type PatternSource } from '../text/pattern-index.js'
import type { LogMatches } from './types.js'

/**
 * The engine's own bound on the text it scans (the collectors already keep excerpts to
 * 512 KiB): a 512 KiB UTF-8 excerpt has at most this many characters.
 */
const maxExcerptChars = 512 * 1024

/** The last `maxExcerptChars` of a text, as an excerpt; null for no text. */
export const windowOf = (text: string): Excerpt | null =>
  text ? excerptOfText(text.length > maxExcerptChars ? text.slice(-maxExcerptChars) : text) : null

/**
 * The one scanner over every log pattern of the catalogue (DiagnosisEngine's `log` fact):
 * each pattern once, however many rules test it, and its index built again, lazily, when a
 * rule brings a pattern it did not have.
 */
export class CatalogueScanner {
  private readonly sources: PatternSource[] = []
  private readonly scanned = new Set<string>()
  private plainIndex: PatternIndex | undefined
  private readonly markedIndexes = new WeakMap<readonly string[], { patterns: number; index: PatternIndex }>()

  /** A rule's patterns join the scan; the ones already in it are not scanned twice. */
  add(patterns: readonly string[]): void {
    const added = patterns.filter((source) => !this.scanned.has(source))
    for (const source of added) {
      this.scanned.add(source)
      this.sources.push({ key: source, source })
    }
    // The scanner's index covers every pattern: the next scan builds it again.
    if (added.length > 0) this.plainIndex = undefined
  }

  /** The first line of each pattern in an excerpt; nothing for no excerpt. */
  scanWindow(excerpt: Excerpt | null): LogMatches {
    if (!excerpt) return new Map()
    this.plainIndex ??= PatternIndex.fromSources(this.sources)
    return this.plainIndex.scanExcerpt(excerpt)
  }

  /**
   * The scan of raw log bytes whose lines holding one of `markers` need `rewrite` first
   * (redaction), in one pass: PatternIndex.scanRewriting. Returns the rewritten excerpt.
   */
  scanRewriting(raw: Buffer, markers: readonly string[], rewrite: LineRewriter) {
    let marked = this.markedIndexes.get(markers)
    // Built again when a rule was added since.
    if (!marked || marked.patterns !== this.sources.length) {
      // The exception reader's candidate lines are noted in the same pass (its words are line words).
      marked = {
        patterns: this.sources.length,
        index: PatternIndex.fromSources(this.sources, markers, candidateWords),
      }
      this.markedIndexes.set(markers, marked)
    }
    return marked.index.scanRewriting(raw, rewrite)
  }
}
