/**
 * Every `pattern` keyword's value in a JSON schema (or a document holding schemas) that
 * can fail validation: a pattern under `if` only selects, and no error ever names it.
 */
export function patternsOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(patternsOf)
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'if' ? [] : key === 'pattern' && typeof value === 'string' ? [value] : patternsOf(value),
  )
}
