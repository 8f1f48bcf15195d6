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
