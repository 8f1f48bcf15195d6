// Header values (D23): CR, LF and every other control character are removed, so no label
// can add a header or split the message; length is capped so a 10 KB label stays readable.
const maxSubject = 300

export function headerValue(text: string, max = maxSubject): string {
  const visible = Array.from(text, (ch) => {
    const code = ch.charCodeAt(0)
    return code < 0x20 || code === 0x7f ? ' ' : ch
  }).join('')
  const clean = visible.replace(/\s{2,}/g, ' ').trim()
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

export function diagnosisSubject(a: {
  severity: string
  alertname: string
  instance: string
  branch: string
  ruleName: string
  category: string
}): string {
  return headerValue(`[${a.severity}] ${a.alertname} on ${a.instance}: ${a.branch} ${a.ruleName} (${a.category})`)
}

export function recoverySubject(a: {
  alertname: string
  instance: string
  branch: string
  ruleName: string
  duration: string
}): string {
  return headerValue(`[RESOLVED] ${a.alertname} on ${a.instance}: ${a.branch} ${a.ruleName}, open ${a.duration}`)
}

/** D24: derived from the event id, so a re-send after a crash is recognisably the same message. */
export const messageId = (eventId: string) => `<${eventId}@diagnostic-service>`
