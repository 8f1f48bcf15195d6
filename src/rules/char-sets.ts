// Sets of UTF-16 code units as sorted, disjoint, inclusive ranges: what one position of a
// regular expression can match (linear-patterns.ts). Without the `u` flag a RegExp reads
// code units, so 0 to 0xFFFF is the whole alphabet.

export type CharSet = ReadonlyArray<readonly [number, number]>

const top = 0xffff

/** The ranges sorted and merged. */
export function charSet(ranges: ReadonlyArray<readonly [number, number]>): CharSet {
  const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const [lo, hi] of sorted) {
    const last = merged[merged.length - 1]
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi)
    else merged.push([lo, hi])
  }
  return merged
}

export const anyChar: CharSet = [[0, top]]
export const digits: CharSet = [[0x30, 0x39]]
export const wordChars = charSet([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
])
/** ECMAScript's WhiteSpace and LineTerminator (`\s`). */
export const spaces = charSet([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
])
export const lineTerminators = charSet([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])

export const single = (code: number): CharSet => [[code, code]]

export function union(...sets: CharSet[]): CharSet {
  return charSet(sets.flat())
}

export function complement(set: CharSet): CharSet {
  const out: Array<[number, number]> = []
  let next = 0
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= top) out.push([next, top])
  return out
}

export function intersection(a: CharSet, b: CharSet): CharSet {
  const out: Array<[number, number]> = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i] as readonly [number, number]
    const [blo, bhi] = b[j] as readonly [number, number]
    const lo = Math.max(alo, blo)
    const hi = Math.min(ahi, bhi)
    if (lo <= hi) out.push([lo, hi])
    if (ahi < bhi) i++
    else j++
  }
  return out
}

export const isEmpty = (set: CharSet) => set.length === 0
export const meet = (a: CharSet, b: CharSet) => !isEmpty(intersection(a, b))

/**
 * A superset of what `set` matches under the `i` flag without `u`: ECMAScript folds case by
 * upper-casing, and never folds a non-ASCII character onto an ASCII one, so ASCII letters
 * gain their other case and any non-ASCII character stands for every non-ASCII one.
 */
export function caseFolded(set: CharSet): CharSet {
  const extra: Array<[number, number]> = []
  for (const [lo, hi] of set) {
    for (const [from, to, shift] of [
      [0x41, 0x5a, 0x20],
      [0x61, 0x7a, -0x20],
    ] as const) {
      const a = Math.max(lo, from)
      const b = Math.min(hi, to)
      if (a <= b) extra.push([a + shift, b + shift])
    }
    if (hi >= 0x80) extra.push([0x80, top])
  }
  return union(set, extra)
}
