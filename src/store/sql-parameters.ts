// The statements both storage adapters share are written once, with PostgreSQL's `$`
// placeholders (docs/design.md, "Storage"); these spell them the way each driver binds them.

/** `$name` as better-sqlite3's `@name`, bound by an object of those names. */
export const sqliteNamed = (sql: string) => sql.replace(/\$([A-Za-z]\w*)/g, '@$1')

/** `$n` as better-sqlite3's `?n`, bound by an object keyed by number (`numbered`). */
export const sqliteNumbered = (sql: string) => sql.replace(/\$(\d+)/g, '?$1')

export const numbered = (...values: unknown[]): Record<number, unknown> =>
  Object.fromEntries(values.map((value, i) => [i + 1, value]))

/** `$name` as PostgreSQL's `$1`, `$2`, ..., with the values in that order. */
export function positional(sql: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = []
  const text = sql.replace(/\$([A-Za-z]\w*)/g, (_, name: string) => {
    let index = order.indexOf(name)
    if (index < 0) index = order.push(name) - 1
    return `$${index + 1}`
  })
  return { text, values: order.map((name) => params[name]) }
}
