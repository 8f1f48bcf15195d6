import fc from 'fast-check'

// Instants and the RFC 3339 forms they may be written in, for property tests.

/** `instant` (epoch ms, whole seconds or not) written in one of the forms RFC 3339 allows. */
export function written(
  instant: number,
  form: { separator: string; zone: string; offsetMinutes: number; digits: number },
) {
  const local = new Date(instant + form.offsetMinutes * 60_000).toISOString() // YYYY-MM-DDTHH:MM:SS.mmmZ
  const date = local.slice(0, 10)
  const time = local.slice(11, 19)
  const ms = local.slice(20, 23)
  const fraction = form.digits === 0 ? '' : `.${ms.padEnd(form.digits, '0')}`
  const abs = Math.abs(form.offsetMinutes)
  const hh = String(Math.floor(abs / 60)).padStart(2, '0')
  const mm = String(abs % 60).padStart(2, '0')
  const sign = form.offsetMinutes < 0 ? '-' : '+'
  const zone =
    form.zone === 'Z' || form.zone === 'z'
      ? form.zone
      : form.zone === 'hh:mm'
        ? `${sign}${hh}:${mm}`
        : form.zone === 'hhmm'
          ? `${sign}${hh}${mm}`
          : `${sign}${hh}`
  return `${date}${form.separator}${time}${fraction}${zone}`
}

export const form = fc.oneof(
  fc.record({
    separator: fc.constantFrom('T', 't', ' '),
    zone: fc.constantFrom('Z', 'z'),
    offsetMinutes: fc.constant(0),
    digits: fc.constantFrom(0, 3, 6, 9),
  }),
  fc.record({
    separator: fc.constantFrom('T', 't', ' '),
    zone: fc.constantFrom('hh:mm', 'hhmm'),
    offsetMinutes: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
    digits: fc.constantFrom(0, 3, 6, 9),
  }),
  fc.record({
    separator: fc.constantFrom('T', 't', ' '),
    zone: fc.constant('hh'),
    offsetMinutes: fc.integer({ min: -23, max: 23 }).map((h) => h * 60),
    digits: fc.constantFrom(0, 3, 6, 9),
  }),
)
// Milliseconds: digits=0 drops them, so the property uses whole seconds there.
export const instant = fc.integer({ min: Date.parse('1970-01-01T00:00:00Z'), max: Date.parse('2200-01-01T00:00:00Z') })
