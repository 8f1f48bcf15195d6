import { X509Certificate } from 'node:crypto'
import type { TokenVerifier } from '../auth/tokens.js'
import type { CredentialExpiries } from '../operations-metrics.js'

/**
 * When the server certificate (the first of its chain) and each token that has an
 * `expiresAt` stop working, for the expiry gauges. Both are read once at start: the
 * service takes a new certificate or token file on a restart only.
 */
export function credentialExpiries(tokens: Pick<TokenVerifier, 'expiries'>, certPem: Buffer): CredentialExpiries {
  const notAfter = Date.parse(new X509Certificate(certPem).validTo)
  return { certificate: Number.isFinite(notAfter) ? notAfter : null, tokens: tokens.expiries() }
}
