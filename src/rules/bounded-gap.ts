import { type CharSet, meet } from './char-sets.js'
import { flatSequences } from './linear-patterns.js'

// A proof, without running recheck, that recheck accepts an expression of one shape: a run of
// single characters or classes, one bounded gap, another run (`OrderService7\b.{0,40}rejected`,
// `Caused by: [^\n]{0,80}Exception`), assertions anywhere, flags `i`, `m`, `s` (docs/design.md,
// "What a rule may cost"). Past 30 repetitions in all, recheck decides such an expression by
// fuzzing (about 450 ms), and it refuses `X[^\n]{0,200}Y`: the verdict depends on the bound,
// so the bound is what is proven here.
//
// Why it is sound. recheck's fuzzer (recheck 4.5, fuzz/FuzzChecker.scala) tries strings shorter
// than `maxGeneStringSize` on its backtracking VM, stopped at `incubationLimit` steps; only a
// string that reaches the limit is pumped into an attack, and only an attack can make the
// verdict `vulnerable`. A step is one character read successfully (vm/Interpreter.scala; a
// memoised state adds the steps it cost the first time, so acceleration changes no count).
// So if every string shorter than `maxGeneStringSize` costs fewer steps than the limit, no
// attack is ever tried and the verdict is `safe`, whatever strings the fuzzer draws: with any
// random seed. Under 30 repetitions recheck builds its automaton instead, whose only loop in
// this shape is the search's own (no two loops, no two ways around one: linear, `safe`).
// `test/unit/bounded-gap.test.ts` holds real recheck to this on generated expressions of the
// shape, at and just under the bound, with several seeds.
//
// The steps on a text of n characters, for a prefix run A (a items), a gap S{m,k}, a suffix run
// B (b items): the search reads each of the n characters once. At each position the attempt
// reads A while it matches. Two such reads that overlap, started d apart, need a character in
// both A[0] and A[d]; with D the set of such shifts, a position is read by at most 1 + |D|
// attempts (and at most a), so A costs at most n·min(a, 1 + |D|). A whole A matches at
// positions at least min(D ∪ {a}) apart, and after each the gap reads at most k characters
// (forward once; backtracking gives them back without reading) and tries B at each of its
// k − m + 1 ends; a failed try reads at most b characters (all of B, then an assertion after
// it fails: `S^` under `m`, found by the property test), and by the same argument for B the
// tries after one A read at most min((k − m + 1)·b, (k − m + b)(1 + |D_B|)).

/** recheck's fuzzing limits this proof relies on; pattern-safety.ts passes them to recheck. */
export const recheckFuzzLimits = { incubationLimit: 25_000, maxGeneStringSize: 2_400 }

/**
 * The share of the incubation limit the proven bound may reach: the bound already counts
 * every read at its most, and the tenth left over absorbs a recheck that would count a few
 * steps of its own more per run.
 */
export const gapBudgetShare = 0.9

type GapShape = { prefix: CharSet[]; gap: { min: number; max: number }; suffix: CharSet[] }

/** The expression as prefix, gap, suffix; null when it is not of that shape. */
function gapShape(source: string, flags: string): GapShape | null {
  const [items, ...alternatives] = flatSequences(source, flags) ?? []
  if (!items || alternatives.length > 0) return null
  const runs: CharSet[][] = [[]]
  let gap: GapShape['gap'] | null = null
  for (const item of items) {
    if (item.kind !== 'set') return null
    if (item.min === 1 && item.max === 1) (runs[runs.length - 1] as CharSet[]).push(item.set)
    else if (gap || item.max === Number.POSITIVE_INFINITY) return null
    else {
      gap = { min: item.min, max: item.max }
      runs.push([])
    }
  }
  if (!gap) return null
  return { prefix: runs[0] as CharSet[], gap, suffix: runs[1] as CharSet[] }
}

/** The shifts d at which a read of `run` may start inside another one: `run[0]` meets `run[d]`. */
const overlapShifts = (run: readonly CharSet[]) =>
  run.flatMap((set, d) => (d > 0 && meet(run[0] as CharSet, set) ? [d] : []))

/** The most steps recheck's VM may spend on any text of `n` characters; null outside the shape. */
export function gapStepBound(source: string, flags: string, n: number): number | null {
  const shape = gapShape(source, flags)
  if (!shape) return null
  const { prefix, gap, suffix } = shape
  const a = prefix.length
  const b = suffix.length
  const shiftsA = overlapShifts(prefix)
  const prefixReads = n * Math.min(a, 1 + shiftsA.length)
  const apart = Math.min(a, ...shiftsA)
  const wholePrefixes = a === 0 ? n + 1 : n < a ? 0 : Math.floor((n - a) / apart) + 1
  const ends = gap.max - gap.min + 1
  const suffixTries = b === 0 ? 0 : Math.min(ends * b, (ends + b - 1) * (1 + overlapShifts(suffix).length))
  return n + prefixReads + wholePrefixes * (gap.max + suffixTries) + b
}

/** Whether the expression has the shape and recheck's fuzzer cannot reach its incubation limit on it. */
export function provenBoundedGap(
  source: string,
  flags: string,
  budget = gapBudgetShare * recheckFuzzLimits.incubationLimit,
): boolean {
  const steps = gapStepBound(source, flags, recheckFuzzLimits.maxGeneStringSize - 1)
  return steps !== null && steps <= budget
}
