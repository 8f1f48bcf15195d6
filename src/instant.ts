// The one reader of timestamps (docs/design.md, "Instants"). Every instant the service
// accepts, from a webhook, a token file, a query parameter or a spool record, is read here,
// and the schemas' `date-time` format is this same function (src/ajv.ts): what a schema
// accepts is read as exactly one instant, and what this cannot read, a schema refuses.

const rfc3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,64}))?(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)$/

const daysIn = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31

/**
 * An RFC 3339 timestamp as epoch milliseconds (UTC), or undefined when it is not one.
 * Accepted: `T`, `t` or a space between date and time (RFC 3339 5.6 and its note); `Z`, `z`
 * or an offset `+hh:mm`, `+hhmm`, `+hh`; any number of fraction digits, those past the
 * millisecond dropped; a leap second (`:60`) only where one can stand (23:59:60 UTC), read
 * as the instant after :59 as Go's time package does. A time zone is required: without one
 * the instant is not known.
 */
export function parseInstant(text: string): number | undefined {
  const m = rfc3339.exec(text)
  if (!m) return undefined
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = Number(s)
  const offsetHours = Number(oh ?? 0)
  const offsetMinutes = Number(om ?? 0)
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  const date = new Date(0)
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as they are (Alertmanager's zero time is year 1).
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, Math.min(second, 59), Number((fraction ?? '').padEnd(3, '0').slice(0, 3)))
  const instant = date.getTime() - offset
  if (second === 60) {
    // A leap second is inserted after 23:59:59 UTC, nowhere else.
    const utc = new Date(instant)
    if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return undefined
    return instant + 1000
  }
  return instant
}

/** parseInstant for text a schema already accepted: anything else is a bug, not input. */
export function toInstant(text: string): number {
  const instant = parseInstant(text)
  if (instant === undefined) throw new RangeError(`not an RFC 3339 timestamp: ${text.slice(0, 64)}`)
  return instant
}

/** The `date-time` format of every schema of ours: exactly what parseInstant reads. */
export const dateTimeFormat = {
  type: 'string' as const,
  validate: (text: string) => parseInstant(text) !== undefined,
  compare: (a: string, b: string) => Math.sign(toInstant(a) - toInstant(b)),
}
