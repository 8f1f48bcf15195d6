import type { Diagnostics } from 'recheck'
import type { Pattern } from '../text/pattern.js'
import { provenBoundedGap, recheckFuzzLimits } from './bounded-gap.js'
import { provenLinear } from './linear-patterns.js'
import type { CostMeasure } from './off-thread-cost.js'
import { patternCostBudget, worstScanCpuMs } from './pattern-cost.js'

/**
 * `safe: false` is a refusal with its reason, unless `undecided`: then the check could not
 * finish on this host now, which says nothing about the pattern (the API answers 503).
 */
export type SafetyVerdict = { safe: true } | { safe: false; reason: string; undecided?: true }

/**
 * Finds a quantified group that itself contains a quantifier, such as `(a+)+`, `(a*)*`,
 * `(?:x|y+){2,}` or `(a?)+`: the classic shape of catastrophic backtracking (D19). Found
 * statically, before any analysis, and refused whatever the analysis would say.
 */
export function findNestedQuantifier(source: string): string | null {
  const stack: Array<{ start: number; quantified: boolean }> = [{ start: 0, quantified: false }]
  const quantifierAt = (i: number): number => {
    const c = source[i]
    if (c === '*' || c === '+' || c === '?') return 1
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i))
      if (m) return m[0].length
    }
    return 0
  }
  const repeats = (i: number, length: number): boolean => {
    if (length === 0) return false
    const q = source.slice(i, i + length)
    if (q === '*' || q === '+') return true
    if (q === '?') return false
    const m = /^\{(\d+)(,(\d*))?\}$/.exec(q)
    return m !== null && (m[2] === undefined ? Number(m[1]) > 1 : m[3] === '' || Number(m[3]) > 1)
  }
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    const top = stack[stack.length - 1] as { start: number; quantified: boolean }
    if (c === '\\') {
      i++
    } else if (c === '[') {
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++
    } else if (c === '(') {
      stack.push({ start: i, quantified: false })
      // Skip a group prefix (?: (?= (?! (?<= (?<! (?<name>: its `?` is no quantifier.
      const prefix = /^\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(source.slice(i + 1))
      if (prefix) i += prefix[0].length
    } else if (c === ')' && stack.length > 1) {
      const group = stack.pop() as { start: number; quantified: boolean }
      const length = quantifierAt(i + 1)
      if (group.quantified && repeats(i + 1, length)) return source.slice(group.start, i + 1 + length)
      const parent = stack[stack.length - 1] as { quantified: boolean }
      parent.quantified ||= group.quantified || length > 0
      i += length
      if (length > 0 && source[i + 1] === '?') i++ // lazy marker
    } else {
      const length = quantifierAt(i)
      if (length > 0 && i > 0) {
        top.quantified = true
        i += length - 1
        if (source[i + 1] === '?') i++
      }
    }
  }
  return null
}

/**
 * Decides whether a pattern is safe to run over untrusted log text (D19): literals always
 * are; a regular expression must have no nested quantifier, be reported `safe` by
 * recheck (`vulnerable` is refused with its attack string, an expression recheck cannot
 * analyse is refused), and scan its worst-case text within the CPU budget
 * (pattern-cost.ts). A refusal's reason says which of these failed and with what figure.
 *
 * recheck's proof is bounded by `timeoutMs` of wall-clock time. When it runs out, nothing
 * was learnt about the pattern, only that the host was slow: the verdict is `undecided`
 * (the API answers 503, try again), never a refusal, and it is not kept. Other verdicts
 * are cached: the same source is never analysed twice.
 */
export class PatternSafety {
  private readonly cache = new Map<string, Promise<SafetyVerdict>>()

  constructor(
    private readonly options: { timeoutMs: number; cacheSize: number } = { timeoutMs: 3000, cacheSize: 2000 },
    /** Where the cost is measured: on this thread, or off the event loop (off-thread-cost.ts). */
    private readonly measure: CostMeasure = worstScanCpuMs,
  ) {}

  verdict(pattern: Pattern): Promise<SafetyVerdict> {
    if (pattern.kind === 'literal') return Promise.resolve({ safe: true })
    const key = `${pattern.flags}/${pattern.source}`
    let cached = this.cache.get(key)
    if (!cached) {
      const analysed = this.analyse(pattern.source, pattern.flags)
      cached = analysed
      if (this.cache.size >= this.options.cacheSize) {
        const oldest = this.cache.keys().next().value
        if (oldest !== undefined) this.cache.delete(oldest)
      }
      this.cache.set(key, analysed)
      void analysed.then((verdict) => {
        if (!verdict.safe && verdict.undecided && this.cache.get(key) === analysed) this.cache.delete(key)
      })
    }
    return cached
  }

  private async analyse(source: string, flags: string): Promise<SafetyVerdict> {
    const nested = findNestedQuantifier(source)
    if (nested) return { safe: false, reason: `nested quantifier ${nested}: catastrophic backtracking` }
    // A flat expression proven linear here needs no proof from recheck (linear-patterns.ts), nor
    // does a bounded gap between runs of characters that recheck's fuzzer cannot reach its
    // limit on (bounded-gap.ts).
    const proven = provenLinear(source, flags) || provenBoundedGap(source, flags)
    const proof = proven ? null : await this.recheck(source, flags)
    if (proof) return proof
    let ms: number
    try {
      ms = await this.measure(source, flags)
    } catch (error) {
      // Nothing was learnt about the pattern: like a proof that did not finish, no refusal.
      const why = error instanceof Error ? error.message : String(error)
      return { safe: false, undecided: true, reason: `its cost could not be measured (${why}); try again` }
    }
    const { maxCpuMs, textBytes } = patternCostBudget
    return ms <= maxCpuMs
      ? { safe: true }
      : {
          safe: false,
          reason: `scanning ${textBytes / 1024} KiB of text built to be slow for it takes ${Math.round(ms)} ms of CPU time (the budget is ${maxCpuMs} ms)`,
        }
  }

  /** recheck's verdict when it refuses or cannot decide; null when it found the expression safe. */
  private async recheck(source: string, flags: string): Promise<SafetyVerdict | null> {
    const undecided = (why: string): SafetyVerdict => ({
      safe: false,
      undecided: true,
      reason: `recheck ${why} (the host may be busy); try again`,
    })
    let diagnostics: Diagnostics
    try {
      // Loaded with the first expression that needs its proof: recheck holds about 9 MiB
      // (docs/performance.md, "Bounded young generations"), which a service whose rules are
      // all substrings or proven linear would hold for nothing. The fuzzing limits
      // bounded-gap.ts proves against are recheck's defaults, passed here so that the proof
      // and recheck cannot drift apart.
      const { check } = await import('recheck')
      diagnostics = await check(source, flags, recheckOptions(this.options.timeoutMs))
    } catch {
      return undecided('failed to run')
    }
    if (diagnostics.status === 'vulnerable') {
      const { complexity, attack } = diagnostics
      const kind = complexity.type === 'polynomial' ? `polynomial (degree ${complexity.degree})` : 'exponential'
      return { safe: false, reason: `${kind} backtracking on the attack string ${shortened(attack.pattern)}` }
    }
    if (diagnostics.status === 'unknown') {
      const { error } = diagnostics
      if (error.kind === 'timeout') return undecided(`did not finish its proof within ${this.options.timeoutMs} ms`)
      if (error.kind === 'cancel') return undecided('was cancelled')
      return { safe: false, reason: `recheck cannot analyse it (${error.kind}: ${error.message})` }
    }
    return null
  }
}

/**
 * What recheck is asked with. Its incubation time limit is off: a fuzzing run slower than
 * 250 ms on a busy host was taken for a costly string and attacked, so the same expression
 * was safe on a quiet host and refused on a loaded one; now a string is attacked only when
 * it reaches the step limit, which counts work, not time. `timeoutMs` bounds the whole
 * proof: past it the verdict is "undecided, try again", never a refusal.
 */
export const recheckOptions = (timeoutMs: number) => ({
  ...recheckFuzzLimits,
  incubationTimeout: null,
  timeout: timeoutMs,
})

/** recheck writes an attack string as a JavaScript expression; a few are long. */
const shortened = (text: string) => (text.length > 120 ? `${text.slice(0, 117)}...` : text)
