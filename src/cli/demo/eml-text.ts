/**
 * The Subject and the text/plain part of a report the file outbox wrote
 * (multipart/alternative, composed by nodemailer: 7bit, quoted-printable or base64 by
 * content), decoded. Only for the demo's own .eml files, whose subjects are ASCII: a
 * general MIME reader this is not.
 */
export function emlText(eml: string): { subject: string; text: string } {
  const unfolded = (head: string) => head.replace(/\r?\n[ \t]+/g, ' ')
  const headEnd = eml.search(/\r?\n\r?\n/)
  const head = unfolded(eml.slice(0, headEnd))
  const boundary = /boundary="?([^";\s]+)"?/i.exec(head)?.[1]
  if (headEnd < 0 || !boundary) throw new Error('not a multipart message')
  const subject = /^subject: (.*)$/im.exec(head)?.[1] ?? ''
  for (const part of eml.slice(headEnd).split(`--${boundary}`)) {
    const blank = part.search(/\r?\n\r?\n/)
    if (blank < 0) continue
    const headers = unfolded(part.slice(0, blank))
    if (!/^content-type:\s*text\/plain/im.test(headers)) continue
    const body = part
      .slice(blank)
      .replace(/^\r?\n\r?\n/, '')
      .replace(/\r?\n$/, '')
    const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase()
    if (encoding === 'base64') return { subject, text: Buffer.from(body, 'base64').toString('utf8') }
    return { subject, text: encoding === 'quoted-printable' ? quotedPrintable(body) : body }
  }
  throw new Error('no text/plain part')
}

/** RFC 2045 quoted-printable: soft line breaks removed, =XX turned back into its bytes (UTF-8). */
function quotedPrintable(body: string): string {
  const joined = body.replace(/=\r?\n/g, '')
  return decodeURIComponent(joined.replace(/%/g, '%25').replace(/=([0-9A-Fa-f]{2})/g, '%$1'))
}
