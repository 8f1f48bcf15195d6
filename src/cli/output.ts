/** Where a command writes: results to stdout, errors and notes to stderr (and scripts read --json). */
export interface Output {
  out(line: string): void
  err(line: string): void
}

/** The fields a custom rule is made of, normalised as the service stores them. */
const contentFields = [
  'ruleId',
  'branch',
  'ruleName',
  'category',
  'targetSource',
  'pattern',
  'assessment',
  'classification',
  'confidence',
  'recommendedActions',
] as const

function content(rule: Record<string, unknown>): string {
  return JSON.stringify(
    contentFields.map((field) => {
      const value = rule[field] ?? null
      return field === 'classification' || field === 'confidence' ? String(value).toLowerCase() : value
    }),
  )
}

/** Whether a rule file's rule says exactly what a registered rule says: pushing it again changes nothing. */
export const sameRule = (a: Record<string, unknown>, b: Record<string, unknown>) => content(a) === content(b)

/**
 * Text from the service as a terminal line: control characters but the tab (an escape
 * sequence in a label value) shown as `\u001b`, never interpreted; cut to `max` characters.
 */
export function printable(value: unknown, max = 200): string {
  const text = String(value ?? '-').replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is escaped
    /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
  return text.length > max ? `${text.slice(0, max - 3)}...` : text
}

/** Rows as columns two spaces apart, each as wide as its widest cell; the last is not padded. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = []
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length)
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  )
}
