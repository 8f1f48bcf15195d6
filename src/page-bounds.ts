// Every response is bounded (docs/design.md, "Every response is bounded"): a page holds at
// most its limit of items and, past its first item, at most `pageBudgetBytes` of them, so
// that no request makes the event loop build (and serialise) megabytes. Shared by the
// repositories that read pages and the routes that slice lists in memory.

/** The bytes the items of one page may add up to (their text as stored or as sent). */
export const pageBudgetBytes = 1024 * 1024

export interface Page<T> {
  items: T[]
  /** Whether items were left for a next page (by the limit or by the budget). */
  more: boolean
}

/**
 * Takes items in order until `limit` are taken or the next would bring the page over
 * `budget` bytes; the first item is always taken, so a page never comes back empty while
 * items are left. Stops reading `items` there: with a statement's `iterate()`, the rows
 * after the page are never fetched.
 */
export function takePage<T>(
  items: Iterable<T>,
  limit: number,
  sizeOf: (item: T) => number,
  budget = pageBudgetBytes,
): Page<T> {
  const taken: T[] = []
  let bytes = 0
  for (const item of items) {
    const size = sizeOf(item)
    if (taken.length >= limit || (taken.length > 0 && bytes + size > budget)) return { items: taken, more: true }
    taken.push(item)
    bytes += size
  }
  return { items: taken, more: false }
}

/** UTF-8 bytes of the strings, plus what a record's names and punctuation add. */
export const textBytes = (...texts: Array<string | null | undefined>) =>
  texts.reduce((sum, text) => sum + (text ? Buffer.byteLength(text) : 0), 256)
