import { describe, expect, it } from 'vitest'
import { csvCell, csvLine } from '../../src/console/csv.js'
import { countScale } from '../../src/console/svg-charts.js'

// The console's CSV export (src/console/csv.ts): RFC 4180 quoting, and formula injection
// defused as OWASP recommends (https://owasp.org/www-community/attacks/CSV_Injection).

describe('CSV cells', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1', '\n=1', '\0=1'])(
    'puts a quote before a text cell starting with %j',
    (value) => {
      expect(csvCell(value)).toBe(`"'${value}"`)
    },
  )

  it('quotes text, doubles its quotes, keeps commas and line breaks inside', () => {
    expect(csvCell('a "b", c\r\nd')).toBe('"a ""b"", c\r\nd"')
    expect(csvCell('a=1')).toBe('"a=1"')
    expect(csvCell('')).toBe('""')
  })

  it('writes numbers as numbers, null as nothing, and ends a record with CRLF', () => {
    expect(csvLine(['x', 3, null, -2])).toBe('"x",3,,-2\r\n')
    expect(csvCell(Number.NaN)).toBe('')
  })
})

describe('the count axis of a chart', () => {
  it.each([
    [0, { top: 1, step: 1 }],
    [2, { top: 2, step: 1 }],
    [7, { top: 8, step: 2 }],
    [10, { top: 10, step: 5 }],
    [93, { top: 100, step: 50 }],
    [1234, { top: 1500, step: 500 }],
  ])('scales a largest value of %i to whole steps', (max, scale) => {
    expect(countScale(max)).toEqual(scale)
  })
})
