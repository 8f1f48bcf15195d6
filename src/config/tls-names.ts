import { subjectName } from '../tls/subject-names.js'

/**
 * DIAG_TLS_SANS: more names for the generated certificate (a load balancer's name, a DNS
 * alias), comma-separated DNS names or IP addresses. Returns them canonical, or the lines
 * that say which entry is wrong.
 */
export function parseTlsSans(text: string | undefined, ownCertificate: boolean): { names: string[]; errors: string[] } {
  if (text === undefined) return { names: [], errors: [] }
  if (ownCertificate) {
    return {
      names: [],
      errors: ['DIAG_TLS_SANS names the generated certificate: with DIAG_TLS_CERT, put the names in that certificate'],
    }
  }
  const names: string[] = []
  const errors: string[] = []
  for (const entry of text.split(',')) {
    const name = subjectName(entry)
    if (name) names.push(name.value)
    else errors.push(`DIAG_TLS_SANS: ${JSON.stringify(entry.trim())} is neither a DNS name nor an IP address`)
  }
  return { names, errors }
}
