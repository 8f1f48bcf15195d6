import pg from 'pg'
import { storableText } from './pool.js'

// A batch of ingest requests sends its statements in one round trip (docs/design.md,
// "Storage"): PostgreSQL's simple query protocol takes many statements at once but no
// parameters, so the values go in as literals, quoted by node-postgres's own escapeLiteral.

/** A statement with `$n` parameters, as node-postgres runs it. */
export interface Statement {
  text: string
  values: readonly unknown[]
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`)
    return String(value)
  }
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'string') return pg.escapeLiteral(storableText(value) as string)
  // An array for a prepared statement's array parameter, which gives the elements their type.
  if (Array.isArray(value)) return value.length === 0 ? "'{}'" : `ARRAY[${value.map(literal).join(', ')}]`
  throw new TypeError(`no literal for a ${typeof value}`)
}

/** The statement with each `$n` replaced by its value as a literal (our statements hold no `$` otherwise). */
export function inlined(statement: Statement): string {
  return statement.text.replace(/\$(\d+)/g, (_, n: string) => literal(statement.values[Number(n) - 1]))
}
