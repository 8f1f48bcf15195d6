// Rule patterns (D19): `/source/flags` with flags from i, m, s, u is a regular expression;
// anything else is a literal, case-sensitive substring.

export type Pattern =
  | { kind: 'literal'; text: string }
  | { kind: 'regex'; source: string; flags: string; regex: RegExp }

const regexForm = /^\/(.+)\/([imsu]*)$/s

export class PatternSyntaxError extends Error {}

export function parsePattern(pattern: string): Pattern {
  const match = regexForm.exec(pattern)
  if (!match) return { kind: 'literal', text: pattern }
  const [, source = '', flags = ''] = match
  if (new Set(flags).size !== flags.length) throw new PatternSyntaxError('a regular expression flag is repeated')
  try {
    return { kind: 'regex', source, flags, regex: new RegExp(source, flags) }
  } catch (error) {
    throw new PatternSyntaxError(`not a valid regular expression: ${(error as Error).message}`)
  }
}
