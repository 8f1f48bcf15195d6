import { PatternIndex } from '../text/pattern-index.js'
import { requiredLiterals } from '../text/required-literals.js'
import { type CpuClock, threadCpuMs } from './thread-cpu.js'

/**
 * What a regular expression may cost on the worst text we can build for it, measured at
 * registration (docs/design.md, "What a rule may cost"). recheck refuses super-linear
 * backtracking, but a linear expression can still cost a lot per character: `/Timeout.{1000}/`
 * reads up to 1,000 characters after every "Timeout" of a line too short to match, about
 * 230 ms of CPU per 512 KiB excerpt on this project's 2-core machine, where usual rules
 * take 5 to 10 ms. The budget leaves usual rules a margin of five and more. It is CPU
 * time, never wall-clock time: a busy host makes a scan wait longer, not cost more.
 */
export const patternCostBudget = { textBytes: 512 * 1024, maxCpuMs: 50 }

/**
 * Texts built to be slow for a pattern: its required literals repeated, densely, on lines
 * of several lengths (short lines make bounded repetitions fail at every occurrence),
 * and on one line of the whole size.
 */
function worstCaseTexts(source: string, flags: string): string[] {
  const size = patternCostBudget.textBytes
  const words = (requiredLiterals(source, flags) ?? []).flat()
  const unit = `${words.length > 0 ? words.join(' ') : 'x'} `
  return [200, 1000, 4000, size].map((length) => {
    const line = unit.repeat(Math.max(1, Math.floor((length - 1) / unit.length)))
    return `${line}\n`.repeat(Math.ceil(size / (line.length + 1))).slice(0, size)
  })
}

/**
 * The costliest scan of the worst-case texts with the pattern alone, in ms of the
 * thread's CPU time. CPU time still varies a little (caches shared with other work, a
 * scheduler tick of resolution), so a text over the budget is scanned again, up to five
 * times, and the lowest figure counts; a slow pattern is slow every time and stops early,
 * at 4x the budget.
 */
export function worstScanCpuMs(source: string, flags: string, cpuMs: CpuClock = threadCpuMs): number {
  const index = PatternIndex.fromSources([{ key: 'candidate', source: `/${source}/${flags}` }])
  const cost = (text: string) => {
    const before = cpuMs()
    index.scan(text)
    return cpuMs() - before
  }
  const { maxCpuMs } = patternCostBudget
  let worst = 0
  for (const text of worstCaseTexts(source, flags)) {
    let ms = cost(text)
    for (let tries = 1; tries < 5 && ms > maxCpuMs && ms < 4 * maxCpuMs; tries++) ms = Math.min(ms, cost(text))
    worst = Math.max(worst, ms)
    if (worst > maxCpuMs) break
  }
  return worst
}
