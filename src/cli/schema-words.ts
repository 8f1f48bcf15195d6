import type { ErrorObject } from 'ajv'

// ajv's messages name a failed `pattern` by its regular expression ("must match pattern
// "^[A-Z]+-\d{2}$""), which tells an operator little. The command line explains schema
// errors in words instead: one sentence per field, never a regular expression. Every
// `pattern` of the schemas the CLI validates with has its words here
// (test/unit/schema-words.test.ts fails when one has none).

const oneLine = 'must be one line of text: no line breaks and no NUL characters'

/** What each `pattern` of schemas/rulepack-v1.schema.json and of the CLI config asks, in words. */
export const patternWords: Readonly<Record<string, string>> = {
  '^[A-Z]+-\\d{2}$': 'must be capital letters, a hyphen and two digits, like OPS-31',
  '^[A-Za-z][A-Za-z0-9]{2,79}$': 'must be 3 to 80 letters and digits that start with a letter, like LedgerLockTimeout',
  '^[^\\r\\n\\u0000]+$': oneLine,
  '^(?:[Cc][Oo][Nn][Ff][Ii][Rr][Mm][Ee][Dd]_[Cc][Aa][Uu][Ss][Ee]|[Pp][Rr][Oo][Bb][Aa][Bb][Ll][Ee]_[Cc][Aa][Uu][Ss][Ee])$':
    'must be confirmed_cause or probable_cause (in any case)',
  '^(?:[Hh][Ii][Gg][Hh]|[Mm][Ee][Dd][Ii][Uu][Mm])$': 'must be high or medium (in any case)',
  '^[Hh][Ii][Gg][Hh]$': 'must be high: a confirmed_cause pairs with high confidence',
  '^[Mm][Ee][Dd][Ii][Uu][Mm]$': 'must be medium: a probable_cause pairs with medium confidence',
  '^https://': 'must be an https:// URL',
  '^[a-z][A-Za-z0-9_]*(?:\\.[A-Za-z0-9_$]+)+$':
    'must be a fully qualified Java class name, like java.sql.SQLTransientConnectionException',
  '^[a-z][a-z-]{2,40}$': 'must be a meaning of the exception taxonomy in lower case with hyphens, like heap-exhausted',
}

const formatWords: Readonly<Record<string, string>> = {
  uri: 'must be a URL',
  'date-time': 'must be an RFC 3339 date and time, like 2026-11-22T05:00:00Z',
}

/** `/recommendedActions/2` as `recommendedActions[2]`; the whole document as `the <what>`. */
function fieldName(pointer: string, what: string): string {
  if (pointer === '') return `the ${what}`
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('')
}

const typeWords: Readonly<Record<string, string>> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
}

const list = (values: readonly unknown[]) => values.map((v) => String(v)).join(', ')
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/** One error's requirement, in words (never a regular expression). */
function requirement(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>
  const limit = Number(p.limit)
  switch (error.keyword) {
    case 'type':
      return `must be ${String(p.type)
        .split(',')
        .map((type) => typeWords[type] ?? type)
        .join(' or ')}`
    case 'enum':
      return `must be one of: ${list((p.allowedValues as unknown[]) ?? [])}`
    case 'const':
      return `must be ${String(p.allowedValue)}`
    case 'minLength':
      return `must be at least ${plural(limit, 'character')} long`
    case 'maxLength':
      return `must be at most ${plural(limit, 'character')} long`
    case 'minItems':
      return `must have at least ${plural(limit, 'item')}`
    case 'maxItems':
      return `must have at most ${plural(limit, 'item')}`
    case 'minimum':
      return `must be ${limit} or more`
    case 'maximum':
      return `must be ${limit} or less`
    case 'maxProperties':
      return `must have at most ${plural(limit, 'field')}`
    case 'format':
      return formatWords[String(p.format)] ?? `must be a ${String(p.format)}`
    case 'pattern': {
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description
      return (
        patternWords[String(p.pattern)] ??
        (typeof description === 'string' ? `is not in its form: ${description}` : 'is not in the form it takes')
      )
    }
    default:
      // ajv's own words for the rest: only `pattern` spells out a regular expression.
      return error.message ?? 'is not valid'
  }
}

/** A value as the sentence quotes it: short and printable. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/**
 * ajv errors (of a validator compiled with `verbose: true`, so that each carries the value
 * and its schema) as sentences, one per field: `branch "imp-9" must be capital letters, a
 * hyphen and two digits, like OPS-31`. `what` names the document (`rule`, `config file`).
 */
export function schemaErrorsInWords(errors: readonly ErrorObject[] | null | undefined, what: string): string[] {
  const byField = new Map<string, { value: unknown; needs: string[] }>()
  for (const error of errors ?? []) {
    // `if` only says that a `then` failed; that failure is reported on its own.
    if (error.keyword === 'if') continue
    let field = fieldName(error.instancePath, what)
    let sentence: string
    if (error.keyword === 'required') {
      field = fieldName(`${error.instancePath}/${String(error.params.missingProperty)}`, what)
      sentence = 'is missing'
    } else if (error.keyword === 'additionalProperties') {
      field = fieldName(`${error.instancePath}/${String(error.params.additionalProperty)}`, what)
      sentence = `is not a field of the ${what}`
    } else {
      sentence = requirement(error)
    }
    const entry = byField.get(field) ?? { value: error.keyword === 'required' ? undefined : error.data, needs: [] }
    if (!entry.needs.includes(sentence)) entry.needs.push(sentence)
    byField.set(field, entry)
  }
  return [...byField].map(([field, { value, needs }]) => {
    const shown = value === undefined || typeof value === 'object' ? '' : ` ${quoted(value)}`
    return `${field}${shown} ${needs.join(', and ')}`
  })
}
