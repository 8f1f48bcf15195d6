import { check } from 'recheck'
import type { Pattern } from '../text/pattern.js'
import { patternCostBudget, worstScanMs } from './pattern-cost.js'

export type SafetyVerdict = { safe: true } | { safe: false; reason: string }

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
 * recheck within `timeoutMs` (`vulnerable`, `unknown` and errors are all unsafe), and
 * scan its worst-case text within the cost budget (pattern-cost.ts).
 * Verdicts are cached: the same source is never analysed twice.
 */
export class PatternSafety {
  private readonly cache = new Map<string, Promise<SafetyVerdict>>()

  constructor(
    private readonly options: { timeoutMs: number; cacheSize: number } = { timeoutMs: 3000, cacheSize: 2000 },
  ) {}

  verdict(pattern: Pattern): Promise<SafetyVerdict> {
    if (pattern.kind === 'literal') return Promise.resolve({ safe: true })
    const key = `${pattern.flags}/${pattern.source}`
    let cached = this.cache.get(key)
    if (!cached) {
      cached = this.analyse(pattern.source, pattern.flags)
      if (this.cache.size >= this.options.cacheSize) {
        const oldest = this.cache.keys().next().value
        if (oldest !== undefined) this.cache.delete(oldest)
      }
      this.cache.set(key, cached)
    }
    return cached
  }

  private async analyse(source: string, flags: string): Promise<SafetyVerdict> {
    const nested = findNestedQuantifier(source)
    if (nested) return { safe: false, reason: `nested quantifier ${nested}` }
    try {
      const diagnostics = await check(source, flags, { timeout: this.options.timeoutMs })
      if (diagnostics.status === 'safe') {
        const ms = worstScanMs(source, flags)
        return ms <= patternCostBudget.maxMs
          ? { safe: true }
          : {
              safe: false,
              reason: `it takes ${Math.round(ms)} ms to scan 512 KiB of text built to be slow for it (the budget is ${patternCostBudget.maxMs} ms)`,
            }
      }
      if (diagnostics.status === 'vulnerable') {
        return { safe: false, reason: `${diagnostics.complexity.type} backtracking` }
      }
      return { safe: false, reason: 'its safety could not be proven in time' }
    } catch {
      return { safe: false, reason: 'its safety could not be analysed' }
    }
  }
}
