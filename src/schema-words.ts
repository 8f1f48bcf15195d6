import type { ErrorObject } from 'ajv'
import type { ErrorDetail } from './errors.js'
import { patternWords } from './pattern-words.js'

// ajv's messages name a failed `pattern` by its regular expression, which tells a person
// little. Schema errors are said in words instead, the same words wherever they are shown:
// the API's error bodies (docs/api.md), the command line, the start-up checks of our files.
// Never a regular expression, and never more of what was sent than a short quote.

const formatWords: Readonly<Record<string, string>> = {
  uri: 'must be a URL',
  'date-time': 'must be an RFC 3339 date and time, like 2026-11-22T05:00:00Z',
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

/** A value as a sentence quotes it: short and printable, however long what was sent. */
function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 56 ? `${value.slice(0, 56)}...` : value)
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** What a keyword asks of a value, in words (never a regular expression). */
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
      // A schema compiled with `verbose` gives its description for a pattern without words.
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description
      return (
        patternWords[String(p.pattern)] ??
        (typeof description === 'string' ? `is not in its form: ${description}` : 'is not in the form it takes')
      )
    }
    default:
      // ajv's own words for the rest: only `pattern` spells out a regular expression, and
      // none of the others quotes the value.
      return error.message ?? 'is not valid'
  }
}

/**
 * A JSON pointer with each of its parts cut as `quoted` cuts a name: a label name is the
 * sender's, and a detail repeats no more of what was sent than a short quote.
 */
const boundedPointer = (pointer: string) =>
  pointer
    .split('/')
    .map((part) => (part.length > 56 ? `${part.slice(0, 56)}...` : part))
    .join('/')

/** The one error of a field worth saying: `if` only says that a `then` failed, and `propertyNames` that a name did. */
const said = (error: ErrorObject) => error.keyword !== 'if' && error.keyword !== 'propertyNames'

/** Whether an error is about a field's name (`propertyNames`) rather than its value. */
const ofName = (error: ErrorObject): error is ErrorObject & { propertyName: string } =>
  typeof error.propertyName === 'string'

/**
 * ajv errors as the `details` of the error body (docs/api.md): a JSON pointer and, in words,
 * what the value there must be, at most `limit` of them. A missing field is named by its
 * path; a field the schema does not define, or a refused field name, by a short quote.
 */
export function toDetails(errors: readonly ErrorObject[] | null | undefined, limit = 20): ErrorDetail[] {
  return (errors ?? [])
    .filter(said)
    .slice(0, limit)
    .map((error) => {
      const path = boundedPointer(error.instancePath) || '/'
      if (error.keyword === 'required') {
        return { path: `${path === '/' ? '' : path}/${String(error.params.missingProperty)}`, message: 'is missing' }
      }
      if (error.keyword === 'additionalProperties') {
        return { path, message: `must not have the field ${quoted(error.params.additionalProperty)}` }
      }
      if (ofName(error)) return { path, message: `the field name ${quoted(error.propertyName)} ${requirement(error)}` }
      return { path, message: requirement(error) }
    })
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

/**
 * ajv errors (of a validator compiled with `verbose: true`, so that each carries the value
 * and its schema) as sentences, one per field, for a person who wrote the document: `branch
 * "imp-9" must be capital letters, a hyphen and two digits, like OPS-31`. `what` names the
 * document (`rule`, `config file`).
 */
export function schemaErrorsInWords(errors: readonly ErrorObject[] | null | undefined, what: string): string[] {
  const byField = new Map<string, { value: unknown; needs: string[] }>()
  for (const error of (errors ?? []).filter(said)) {
    let field = fieldName(error.instancePath, what)
    let sentence: string
    if (error.keyword === 'required') {
      field = fieldName(`${error.instancePath}/${String(error.params.missingProperty)}`, what)
      sentence = 'is missing'
    } else if (error.keyword === 'additionalProperties') {
      field = fieldName(`${error.instancePath}/${String(error.params.additionalProperty)}`, what)
      sentence = `is not a field of the ${what}`
    } else if (ofName(error)) {
      sentence = `has the field name ${quoted(error.propertyName)}, which ${requirement(error)}`
    } else {
      sentence = requirement(error)
    }
    const shown = error.keyword === 'required' || ofName(error) ? undefined : error.data
    const entry = byField.get(field) ?? { value: shown, needs: [] }
    if (!entry.needs.includes(sentence)) entry.needs.push(sentence)
    byField.set(field, entry)
  }
  return [...byField].map(([field, { value, needs }]) => {
    const shown = value === undefined || typeof value === 'object' ? '' : ` ${quoted(value)}`
    return `${field}${shown} ${needs.join(', and ')}`
  })
}
