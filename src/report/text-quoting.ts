// Values never start a line of the text report (docs/design.md, "Alert text cannot forge
// the report"). The text part is text/plain: a newline in an annotation, a label, the
// source URL or a log line would otherwise put whatever follows it at the start of a line,
// where it could pass for a section heading, a diagnosis or a recommended action.

/**
 * Every character a reader of a text/plain part may break a line at: LF, CR (a readable
 * MIME body turns a bare CR into a line break), VT, FF, NEL and the Unicode separators.
 */
const lineBreak = /\r\n|[\n\v\f\r\u0085\u2028\u2029]/

/** What each further line of a value starts with: indented under its label and marked. */
export const continuationPrefix = '    |'

/** "a\nb\n\nc" -> "a\n    | b\n    |\n    | c": only the value's first line stays where the template put it. */
export function quoteLines(value: string): string {
  if (!lineBreak.test(value)) return value
  return value
    .split(new RegExp(lineBreak.source, 'g'))
    .map((line, index) => (index === 0 ? line : line === '' ? continuationPrefix : `${continuationPrefix} ${line}`))
    .join('\n')
}

/**
 * The model with every string in it quoted (for the text templates only; HTML escapes
 * instead). Applied to the whole model, so that an overriding template (DIAG_TEMPLATES_DIR)
 * gets the same protection without knowing of it.
 */
export function quoteModel<T>(value: T): T {
  if (typeof value === 'string') return quoteLines(value) as T
  if (Array.isArray(value)) return value.map(quoteModel) as T
  if (value !== null && typeof value === 'object') {
    const quoted: Record<string, unknown> = {}
    for (const [key, field] of Object.entries(value)) quoted[key] = quoteModel(field)
    return quoted as T
  }
  return value
}
