// A small CSV writer (no CSV library is among the dependencies, and writing is ten lines):
// RFC 4180 (https://www.rfc-editor.org/rfc/rfc4180): CRLF line ends, every text cell in
// double quotes with its double quotes doubled, so commas and line breaks stay inside it.
// Formula injection (OWASP, https://owasp.org/www-community/attacks/CSV_Injection; ASVS
// 5.0 V1.2.10): a text cell whose first character a spreadsheet reads as the start of a
// formula (= + - @, tab, CR, LF, NUL) gets a single quote in front, which spreadsheets take
// as "this is text". Label values are a sender's text: an alert named `=HYPERLINK(...)`
// must not become a live formula in an SRE's spreadsheet.

const formulaStart = /^[=+\-@\t\r\n\0]/

export type CsvValue = string | number | null

/** One cell: a number as written, nothing for null, text quoted and defused. */
export function csvCell(value: CsvValue): string {
  if (value === null) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  const text = formulaStart.test(value) ? `'${value}` : value
  return `"${text.replaceAll('"', '""')}"`
}

/** One record, CRLF-terminated. */
export const csvLine = (values: readonly CsvValue[]) => `${values.map(csvCell).join(',')}\r\n`
