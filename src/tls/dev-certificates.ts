import 'reflect-metadata'
import { webcrypto } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as x509 from '@peculiar/x509'

// Decision D3: with no DIAG_TLS_CERT/KEY the service generates a local CA and a server
// certificate for localhost/127.0.0.1/::1 once, and reuses them on later starts, so the
// CA file an operator gave to Alertmanager stays valid across restarts.

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])

type KeyPair = webcrypto.CryptoKeyPair

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const validityDays = { ca: 3650, server: 825 }

export interface DevTlsFiles {
  caFile: string
  certFile: string
  keyFile: string
  /** True when this call created them (the caller prints the CA path once). */
  created: boolean
}

function serial(): string {
  // Positive 128-bit serial: the top bit cleared keeps the DER integer positive.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16))
  bytes[0] = (bytes[0] ?? 0) & 0x7f
  return Buffer.from(bytes).toString('hex')
}

function days(from: Date, count: number): Date {
  return new Date(from.getTime() + count * 86_400_000)
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key))
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()
  return `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`
}

async function generate(hostnames: string[]) {
  const now = new Date(Date.now() - 60_000)
  const caKeys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as KeyPair
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=Diagnostic Service Local CA, O=appserver-diagnostic-service',
    notBefore: now,
    notAfter: days(now, validityDays.ca),
    signingAlgorithm: algorithm,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  })

  const serverKeys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as KeyPair
  const names: x509.JsonGeneralName[] = hostnames.map((host) =>
    /^[\d.]+$|:/.test(host) ? { type: 'ip', value: host } : { type: 'dns', value: host },
  )
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=localhost',
    issuer: ca.subject,
    notBefore: now,
    notAfter: days(now, validityDays.server),
    signingAlgorithm: algorithm,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
      await x509.SubjectKeyIdentifierExtension.create(serverKeys.publicKey),
    ],
  })
  const pem = (certificate: x509.X509Certificate) => `${certificate.toString('pem').trimEnd()}\n`
  return {
    caPem: pem(ca),
    certPem: pem(server),
    keyPem: await privateKeyPem(serverKeys.privateKey),
  }
}

/** Ensures `<dir>/ca.pem`, `server.pem` and `server-key.pem` exist (key mode 0600). */
export async function ensureDevCertificates(
  dir: string,
  hostnames = ['localhost', '127.0.0.1', '::1'],
): Promise<DevTlsFiles> {
  const files = { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server-key.pem') }
  if (existsSync(files.caFile) && existsSync(files.certFile) && existsSync(files.keyFile)) {
    return { ...files, created: false }
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const { caPem, certPem, keyPem } = await generate(hostnames)
  writeFileSync(files.keyFile, keyPem, { mode: 0o600 })
  writeFileSync(files.caFile, caPem, { mode: 0o644 })
  // The chain lets clients that only trust the CA verify without extra configuration.
  writeFileSync(files.certFile, certPem + caPem, { mode: 0o644 })
  return { ...files, created: true }
}

export function readTlsMaterial(files: { certFile: string; keyFile: string; clientCaFile?: string }) {
  return {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
    ...(files.clientCaFile ? { ca: readFileSync(files.clientCaFile) } : {}),
  }
}
