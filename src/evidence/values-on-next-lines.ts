// A key on one line whose value sits on the lines after it (docs/design.md, "Secret
// redaction"). The key's line holds a secret word, so the scanner marks it; `linesAfter`
// tells it how many of the next lines to hand over with it (PatternIndex.scanRewriting),
// and `maskValuesOnNextLines` masks, within those, only what the key's form says is its
// value. Every line keeps its place: a value is masked in its line.
import { cookieName, keyInIdentifier, mask, secretKey } from './secret-words.js'

type Opening =
  /** YAML `password:` with its value on the next, deeper line; with `|` or `>`, all deeper lines. */
  | { form: 'yaml'; indent: number; block: boolean }
  /** A properties value continued with a final backslash. */
  | { form: 'continued' }
  /** An XML element opened at the end of the line: its text follows. */
  | { form: 'xml' }
  /** An object opened after a secret key: its `value` or `clear-text` field holds the secret. */
  | { form: 'object' }
  /** A field naming a secret: the next `value`, `result` or `default` field holds it. */
  | { form: 'named' }

/** Lines after the key that may hold its value; a block scalar or a continued value, more. */
const nearLines = 4
const blockLines = 32

const yamlKey = new RegExp(
  `^([ \\t]{0,80})(?:-[ \\t]{1,4})?["']?${keyInIdentifier}["']?[ \\t]{0,5}:[ \\t]{0,5}(?:([|>])[-+]?[0-9]?)?[ \\t]{0,40}$`,
  'i',
)
const continuedKey = new RegExp(`(?<![\\w.-])${keyInIdentifier}["']?[ \\t]{0,5}[=:]`, 'i')
const xmlOpened = new RegExp(
  `<(?:[\\w:.-]{0,64}${secretKey}[\\w.-]{0,64}|[\\w:.-]{1,64}[ \\t]{1,5}(?:name|key|id)[ \\t]{0,5}=[ \\t]{0,5}["']${keyInIdentifier}["'])[ \\t]{0,5}>[ \\t]{0,40}$`,
  'i',
)
const objectOpened = new RegExp(
  `(?<![\\w.-])${keyInIdentifier}["']?[ \\t]{0,5}(?:=>|[:=])[ \\t]{0,5}\\{[ \\t]{0,40}$`,
  'i',
)
const namingField = new RegExp(
  `(?:^|[\\s({,])["']?(?:name|key|property)["']?[ \\t]{0,5}(?:=>|[:=])[ \\t]{0,5}["']?(?:${keyInIdentifier}|${cookieName})["']?[ \\t]{0,5}[,)]?[ \\t]{0,40}$`,
  'i',
)
/** A naming field's words, searched for before the naming field's expression. */
const namingWord = /name|key|propert/i
/** Any naming field at the start of a line: a new name/value pair begins, the search stops. */
const anyNamingField = /^[ \t]{0,80}(?:-[ \t]{1,4})?["']?(?:name|key)["']?[ \t]{0,5}(?:=>|[:=])/i
const valueFieldOf = {
  object: /^([ \t]{0,80}["']?(?:value|clear[-_]?text)["']?[ \t]{0,5}(?:=>|[:=])[ \t]{0,5})(.*)$/i,
  named: /^([ \t]{0,80}(?:-[ \t]{1,4})?["']?(?:value|result|default)["']?[ \t]{0,5}(?:=>|[:=])[ \t]{0,5})(.*)$/i,
}
/** A YAML mapping entry (`url: …`, `nested:`): a sibling or a child, not a value. */
const mappingEntry = /^[ \t]{0,80}["']?[\w.-]{1,128}["']?[ \t]{0,5}:(?:[ \t]|$)/
const stackFrame = /^[ \t]{0,80}at[ \t]/

/** The expressions of this file, for the proofs of test/unit/redact.test.ts. */
export const nextLinePatterns: readonly RegExp[] = [
  yamlKey,
  continuedKey,
  xmlOpened,
  objectOpened,
  namingField,
  anyNamingField,
  valueFieldOf.object,
  valueFieldOf.named,
  mappingEntry,
  stackFrame,
]

/**
 * Whether a line opens a value on the lines after it, and how. `line`: at most a line's
 * last 512 characters, without trailing spaces. Each form ends with its own character, so
 * the line's last one says which expression to try (most marked lines try one at most).
 */
function openingOf(line: string): Opening | undefined {
  const last = line[line.length - 1]
  const digit = last !== undefined && last >= '0' && last <= '9'
  if (last === ':' || last === '|' || last === '>' || last === '-' || last === '+' || digit) {
    const yaml = yamlKey.exec(line)
    if (yaml) return { form: 'yaml', indent: (yaml[1] as string).length, block: yaml[2] !== undefined }
  }
  if (last === '\\') return endsContinued(line) && continuedKey.test(line) ? { form: 'continued' } : undefined
  if (last === '>') return xmlOpened.test(line) ? { form: 'xml' } : undefined
  if (last === '{') return objectOpened.test(line) ? { form: 'object' } : undefined
  return namingWord.test(line) && namingField.test(line) ? { form: 'named' } : undefined
}

/** How many lines after a marked line the scanner joins to it (`lineEnd`: the line's last bytes). */
export function linesAfter(lineEnd: string): number {
  const opening = openingOf(lineEnd.trimEnd())
  if (!opening) return 0
  return (opening.form === 'yaml' && opening.block) || opening.form === 'continued' ? blockLines : nearLines
}

/** Masks, in place, the values that lines of a record open on the lines after them. */
export function maskValuesOnNextLines(lines: string[]): void {
  for (let i = 0; i < lines.length - 1; i++) {
    const opening = openingOf(tail(lines[i] as string).trimEnd())
    if (opening) i = maskAfter(lines, i, opening)
  }
}

/** Masks the value `opening` announces after line `at`; returns the last line it looked at. */
function maskAfter(lines: string[], at: number, opening: Opening): number {
  const end = Math.min(
    lines.length - 1,
    at + (opening.form === 'yaml' || opening.form === 'continued' ? blockLines : nearLines),
  )
  let i = at + 1
  switch (opening.form) {
    case 'yaml': {
      const next = lines[i] as string
      if (!opening.block && (mappingEntry.test(next) || stackFrame.test(next))) return at
      for (; i <= end; i++) {
        const line = lines[i] as string
        if (line.trim() !== '' && indentOf(line) <= opening.indent) break
        lines[i] = maskWhole(line)
        if (!opening.block) return i
      }
      return i - 1
    }
    case 'continued':
      for (; i <= end; i++) {
        const continued = endsContinued(lines[i] as string)
        lines[i] = maskWhole(lines[i] as string, continued)
        if (!continued) return i
      }
      return end
    case 'xml':
      for (; i <= end; i++) {
        const line = (lines[i] as string).trim()
        if (line === '' || line.startsWith('<')) return i - 1
        lines[i] = maskWhole(lines[i] as string)
      }
      return end
    case 'object':
      for (; i <= end; i++) {
        if ((lines[i] as string).trimStart().startsWith('}')) return i
        lines[i] = maskField(lines[i] as string, valueFieldOf.object)
      }
      return end
    case 'named':
      for (; i <= end; i++) {
        const line = lines[i] as string
        const masked = maskField(line, valueFieldOf.named)
        if (masked !== line) {
          lines[i] = masked
          return i
        }
        if (anyNamingField.test(line)) return i - 1
      }
      return at
  }
}

/** The line's text replaced by the mask, its indentation (and a final continuation) kept. */
function maskWhole(line: string, continued = false): string {
  const body = line.trimEnd()
  if (body.trim() === '') return line
  return `${line.slice(0, indentOf(line))}${mask}${continued ? '\\' : ''}${line.slice(body.length)}`
}

/** A field's value replaced by the mask, its quotes and a final comma kept. */
function maskField(line: string, field: RegExp): string {
  const found = field.exec(line)
  if (!found) return line
  const [, head, rest] = found as unknown as [string, string, string]
  const body = rest.trimEnd()
  const text = body.endsWith(',') ? body.slice(0, -1).trimEnd() : body
  const comma = rest.slice(text.length)
  if (text === '' || text === '{' || (head.includes('=>') && text === 'undefined')) return line
  const quote = text.length > 1 && (text[0] === '"' || text[0] === "'") && text.endsWith(text[0]) ? text[0] : ''
  return `${head}${quote}${mask}${quote}${comma}`
}

/** Whether a line ends with an odd number of backslashes: a properties value goes on. */
function endsContinued(line: string): boolean {
  const body = line.trimEnd()
  let slashes = 0
  while (slashes < body.length && body[body.length - 1 - slashes] === '\\') slashes++
  return slashes % 2 === 1
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length
}

function tail(line: string): string {
  return line.length > 512 ? line.slice(-512) : line
}
