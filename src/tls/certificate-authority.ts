import 'reflect-metadata'
import { createPrivateKey, X509Certificate as NodeCertificate, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { type SubjectName, subjectName } from './subject-names.js'

// A small CA of its own (@peculiar/x509 on WebCrypto): the service's generated local CA
// (dev-certificates.ts, D3), and the tests' relays and servers that need a certificate.

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0])

type KeyPair = webcrypto.CryptoKeyPair

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const validityDays = { ca: 3650, server: 825 }

/** A certificate and its private key, both PEM. */
export interface IssuedPem {
  certPem: string
  keyPem: string
}

export interface CertificateAuthority extends IssuedPem {
  certificate: x509.X509Certificate
  privateKey: webcrypto.CryptoKey
}

function serial(): string {
  // Positive 128-bit serial: the top bit cleared keeps the DER integer positive.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16))
  bytes[0] = (bytes[0] ?? 0) & 0x7f
  return Buffer.from(bytes).toString('hex')
}

/** A minute back, so that a client whose clock is a little behind accepts it at once. */
const validity = (count: number, now = new Date()) => {
  const notBefore = new Date(now.getTime() - 60_000)
  return { notBefore, notAfter: new Date(notBefore.getTime() + count * 86_400_000) }
}

async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key))
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }) as string
}

const pem = (certificate: x509.X509Certificate) => `${certificate.toString('pem').trimEnd()}\n`

export async function createCertificateAuthority(
  name = 'CN=Diagnostic Service Local CA, O=appserver-diagnostic-service',
): Promise<CertificateAuthority> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as KeyPair
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    ...validity(validityDays.ca),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  })
  return {
    certificate,
    privateKey: keys.privateKey,
    certPem: pem(certificate),
    keyPem: await privateKeyPem(keys.privateKey),
  }
}

/** A CA created earlier, from its certificate and PKCS#8 key, to issue with again. */
export async function loadCertificateAuthority(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const der = createPrivateKey(keyPem).export({ format: 'der', type: 'pkcs8' })
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, algorithm, true, ['sign'])
  return { certificate: new x509.X509Certificate(certPem), privateKey, certPem, keyPem }
}

/** A server certificate (and a new key) for these names, signed by the CA, valid from `now`. */
export async function issueServerCertificate(
  ca: CertificateAuthority,
  names: readonly SubjectName[],
  now = new Date(),
): Promise<IssuedPem> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as KeyPair
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${names.find((name) => name.type === 'dns')?.value ?? 'localhost'}`,
    issuer: ca.certificate.subject,
    ...validity(validityDays.server, now),
    signingAlgorithm: algorithm,
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map(({ type, value }) => ({ type, value }))),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  })
  return { certPem: pem(certificate), keyPem: await privateKeyPem(keys.privateKey) }
}

/** The first certificate of a PEM chain. */
const firstCertificate = (chainPem: string) =>
  /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/.exec(chainPem)?.[0] ?? chainPem

/** When a certificate (the first of a chain) stops being valid. */
export const certificateNotAfter = (chainPem: string): Date =>
  new x509.X509Certificate(firstCertificate(chainPem)).notAfter

/** The DNS names and IP addresses a certificate (the first of a chain) names, canonical. */
export function certificateNames(chainPem: string): SubjectName[] {
  const certificate = new x509.X509Certificate(firstCertificate(chainPem))
  const names = certificate.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? []
  return names.flatMap((name) => {
    const parsed = name.type === 'dns' || name.type === 'ip' ? subjectName(name.value) : undefined
    return parsed ? [parsed] : []
  })
}

/** Whether the key is the certificate's (a pair written half before a crash is not). */
export function keyMatches(chainPem: string, keyPem: string): boolean {
  try {
    return new NodeCertificate(firstCertificate(chainPem)).checkPrivateKey(createPrivateKey(keyPem))
  } catch {
    return false
  }
}
