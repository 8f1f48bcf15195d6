import { hostname, networkInterfaces } from 'node:os'
import { type SubjectName, subjectName } from './subject-names.js'

const loopback = ['localhost', '127.0.0.1', '::1']

/** Link-local addresses only mean something on their own link, and IPv6 ones need a zone. */
const linkLocal = (address: string) => /^fe[89ab][0-9a-f]:/i.test(address) || address.startsWith('169.254.')

/**
 * The names the generated server certificate is issued for (docs/operations.md, "TLS
 * beyond localhost"): loopback, this host's name and its addresses other than loopback and
 * link-local (so Alertmanager on another host can verify it by any of them), and the
 * operator's DIAG_TLS_SANS. Canonical and without repeats, in that order.
 */
export function certificateHostNames(extra: readonly string[] = []): SubjectName[] {
  const addresses = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && !linkLocal(entry.address))
    .map((entry) => entry.address)
  const names = new Map<string, SubjectName>()
  for (const text of [...loopback, hostname(), ...addresses, ...extra]) {
    // A host name that is not a valid DNS name (an underscore) could not be verified anyway.
    const name = subjectName(text)
    if (name) names.set(`${name.type}:${name.value}`, name)
  }
  return [...names.values()]
}
