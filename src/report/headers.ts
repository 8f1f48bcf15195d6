// Header values (D23): CR, LF and every other control character are removed, so no label
// can add a header or split the message; length is capped so a 10 KB label stays readable.
const maxSubject = 300

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const controlCharacters = /[\x00-\x1f\x7f]/g

export function headerValue(text: string, max = maxSubject): string {
  const clean = text
    .replace(controlCharacters, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim()
  if (clean.length <= max) return clean
  // The cut never splits a surrogate pair (half an emoji would reach the mail as U+FFFD).
  const cut = /[\ud800-\udbff]/.test(clean.charAt(max - 2)) ? max - 2 : max - 1
  return `${clean.slice(0, cut)}…`
}

export function diagnosisSubject(a: {
  severity: string
  alertname: string
  instance: string
  branch: string
  ruleName: string
  category: string
  /** A re-fire report, or a report on an occurrence that had already ended. */
  state?: 're-fired' | 'ended' | null
}): string {
  const state = a.state === 're-fired' ? 'Re-fired: ' : a.state === 'ended' ? 'Ended: ' : ''
  return headerValue(
    `[${a.severity}] ${state}${a.alertname} on ${a.instance}: ${a.branch} ${a.ruleName} (${a.category})`,
  )
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
