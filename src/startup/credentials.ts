import { join } from 'node:path'
import { allScopes, ensureGeneratedToken, readTokensFile, type TokenEntry, TokenVerifier } from '../auth/tokens.js'
import type { Config } from '../config/load.js'
import { sha256Bytes } from '../sha256.js'
import { ensureDevCertificates } from '../tls/dev-certificates.js'

/** One line each for things an operator must see once (generated token, CA path). */
export type Announce = (line: string) => void

export function loadTokens(config: Config, announce: Announce): TokenVerifier {
  const entries: TokenEntry[] = config.apiTokensFile ? readTokensFile(config.apiTokensFile) : []
  if (config.apiToken) entries.push({ name: 'default', hash: sha256Bytes(config.apiToken), scopes: allScopes })
  if (entries.length === 0) {
    const file = join(config.dataDir, 'api-token')
    const { token, created } = ensureGeneratedToken(file)
    if (created) announce(`generated API token (stored in ${file}, mode 0600, shown only now): ${token}`)
    entries.push({ name: 'default', hash: sha256Bytes(token), scopes: allScopes })
  }
  return new TokenVerifier(entries)
}

export async function loadTls(config: Config, announce: Announce) {
  if (config.tls.certFile && config.tls.keyFile) {
    return {
      generatedCaFile: undefined,
      files: { ...config.tls, certFile: config.tls.certFile, keyFile: config.tls.keyFile },
    }
  }
  const dev = await ensureDevCertificates(join(config.dataDir, 'tls'))
  if (dev.created) announce(`generated a local CA and server certificate; clients trust: ${dev.caFile}`)
  const files = {
    certFile: dev.certFile,
    keyFile: dev.keyFile,
    ...(config.tls.clientCaFile ? { clientCaFile: config.tls.clientCaFile } : {}),
  }
  return { generatedCaFile: dev.caFile, files }
}
