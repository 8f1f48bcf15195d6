import { isIP } from 'node:net'

/** A name a server certificate can be issued for: a DNS name or an IP address. */
export interface SubjectName {
  type: 'dns' | 'ip'
  value: string
}

// RFC 1035 labels (letters, digits, inner hyphens, 1 to 63 characters); a wildcard only as
// the whole leftmost label, as TLS clients match it.
const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const dnsName = new RegExp(`^(?:\\*\\.)?${label}(?:\\.${label})*$`)

/**
 * The canonical form of a DNS name or IP address, or undefined when it is neither (an IPv6
 * address with a zone, such as fe80::1%eth0, means nothing to another host). IPv6 addresses
 * are compressed as URLs write them, so that a name read back from a certificate compares
 * equal to the name it was issued for.
 */
export function subjectName(text: string): SubjectName | undefined {
  const value = text.trim()
  if (isIP(value) === 4) return { type: 'ip', value }
  if (isIP(value) === 6 && !value.includes('%')) {
    return { type: 'ip', value: new URL(`http://[${value}]/`).hostname.slice(1, -1) }
  }
  const lower = value.toLowerCase()
  return lower.length <= 253 && dnsName.test(lower) ? { type: 'dns', value: lower } : undefined
}

/** The valid ones of these names, canonical. */
export const subjectNames = (texts: readonly string[]): SubjectName[] =>
  texts.flatMap((text) => subjectName(text) ?? [])
