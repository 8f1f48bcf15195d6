const minimumLength = 3
const metacharacters = new Set(['.', '^', '$', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '\\'])

/**
 * For a regular expression, one list of literals per top-level alternative such that every
 * match of that alternative contains all of them (its literal runs of 3 characters or
 * more), or null when that cannot be derived safely; then the expression is always run.
 * A prefilter only, so it must never miss: anything it does not understand ends a run.
 * With the `i` flag the index folds ASCII only, so a non-ASCII literal gives no prefilter.
 */
export function requiredLiterals(source: string, flags: string): string[][] | null {
  const branches = splitTopLevel(source)
  if (branches === null) return null
  const result: string[][] = []
  for (const branch of branches) {
    const runs = literalRuns(branch)
    if (runs === null) return null
    const usable = runs.filter((run) => run.length >= minimumLength)
    if (usable.length === 0) return null
    if (flags.includes('i') && usable.some(hasNonAscii)) return null
    result.push(usable)
  }
  return result
}

const hasNonAscii = (text: string) => [...text].some((ch) => ch.charCodeAt(0) > 0x7f)

/** Splits on `|` outside groups and classes; null if the source is unbalanced. */
function splitTopLevel(source: string): string[] | null {
  const branches: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (c === '[') i = skipClass(source, i)
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) {
      branches.push(source.slice(start, i))
      start = i + 1
    }
    if (depth < 0 || i < 0) return null
  }
  if (depth !== 0) return null
  branches.push(source.slice(start))
  return branches
}

function skipClass(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === '\\') i++
    else if (source[i] === ']') return i
  }
  return -1
}

function skipGroup(source: string, open: number): number {
  let depth = 0
  for (let i = open; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') i++
    else if (c === '[') i = skipClass(source, i)
    else if (c === '(') depth++
    else if (c === ')' && --depth === 0) return i
    if (i < 0) return source.length
  }
  return source.length
}

/** Whether the quantifier at `i` (if any) lets the preceding atom occur zero times. */
function optionalAt(source: string, i: number): boolean {
  const c = source[i]
  if (c === '?' || c === '*') return true
  const m = /^\{(\d+)/.exec(source.slice(i))
  return m !== null && Number(m[1]) === 0
}

/** The length of the quantifier at `i` (with its lazy `?`), 0 if there is none. */
function quantifierLength(source: string, i: number): number {
  const c = source[i]
  const braces = /^\{\d+(,\d*)?\}/.exec(source.slice(i))
  const length = c === '?' || c === '*' || c === '+' ? 1 : braces ? braces[0].length : 0
  return length > 0 && source[i + length] === '?' ? length + 1 : length
}

/** The runs of characters that every match of this alternative contains. */
function literalRuns(branch: string): string[] | null {
  const runs: string[] = []
  let run = ''
  const end = () => {
    if (run.length > 0) runs.push(run)
    run = ''
  }
  for (let i = 0; i < branch.length; i++) {
    const c = branch[i] as string
    let literal: string | null = null
    let next = i + 1
    if (c === '\\') {
      const escaped = branch[i + 1]
      // Only an escaped punctuation character is itself; \d, \b, \1, \u… are not literals.
      if (escaped !== undefined && !/[A-Za-z0-9]/.test(escaped)) literal = escaped
      next = i + 2
    } else if (c === '[') {
      next = skipClass(branch, i) + 1
      if (next === 0) return null
    } else if (c === '(') {
      next = skipGroup(branch, i) + 1
    } else if (!metacharacters.has(c)) {
      literal = c
    }
    const quantifier = quantifierLength(branch, next)
    if (literal === null || optionalAt(branch, next)) {
      end()
    } else {
      run += literal
      if (quantifier > 0) end() // `a+`, `a{2}`: one `a` is certain, what follows is not adjacent
    }
    i = next + quantifier - 1
  }
  end()
  return runs
}
