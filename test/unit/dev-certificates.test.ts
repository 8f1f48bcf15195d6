import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { certificateNames, createCertificateAuthority } from '../../src/tls/certificate-authority.js'
import { ensureDevCertificates } from '../../src/tls/dev-certificates.js'
import { subjectNames } from '../../src/tls/subject-names.js'

const names = (...values: string[]) => subjectNames(values)
const base = names('localhost', '127.0.0.1', '::1', 'diag-host', '192.0.2.10', 'fd00::10')

let dir: string
let umask: number
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'dev-certs-')), 'tls')
  // The service runs under umask 077 (server.ts): the public files must be 0644 all the same.
  umask = process.umask(0o077)
})
afterEach(() => {
  process.umask(umask)
  rmSync(dir, { recursive: true, force: true })
})

const read = (file: string) => readFileSync(join(dir, file), 'utf8')
const mode = (file: string) => (statSync(join(dir, file)).mode & 0o777).toString(8)
const issuedBy = (certFile: string, caFile: string) =>
  new X509Certificate(read(certFile)).checkIssued(new X509Certificate(read(caFile)))

describe('the generated CA and server certificate (D3, docs/operations.md "The generated certificate, beyond localhost")', () => {
  it('names every host name and address it was given, CA and chain public (0644), keys 0600', async () => {
    const files = await ensureDevCertificates(dir, base)
    expect(files).toMatchObject({ created: true, reissued: false, missing: [] })
    expect(certificateNames(read('server.pem'))).toEqual([
      { type: 'dns', value: 'localhost' },
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '::1' },
      { type: 'dns', value: 'diag-host' },
      { type: 'ip', value: '192.0.2.10' },
      { type: 'ip', value: 'fd00::10' },
    ])
    expect(issuedBy('server.pem', 'ca.pem')).toBe(true)
    expect(['ca.pem', 'server.pem', 'ca-key.pem', 'server-key.pem', '.'].map(mode)).toEqual([
      '644',
      '644',
      '600',
      '600',
      '711',
    ])
  })

  it('reuses the files while the names are the same', async () => {
    await ensureDevCertificates(dir, base)
    const before = ['ca.pem', 'server.pem', 'server-key.pem'].map(read)
    expect(await ensureDevCertificates(dir, [...base].reverse())).toMatchObject({ created: false, reissued: false })
    expect(['ca.pem', 'server.pem', 'server-key.pem'].map(read)).toEqual(before)
  })

  it('issues the server certificate again, by the same CA, when the names change', async () => {
    await ensureDevCertificates(dir, base)
    const ca = read('ca.pem')
    const key = read('server-key.pem')
    const more = [...base, ...names('diag.example.org', '203.0.113.7')]
    expect(await ensureDevCertificates(dir, more)).toMatchObject({ created: false, reissued: true, missing: [] })
    expect(read('ca.pem')).toBe(ca)
    expect(read('server-key.pem')).not.toBe(key)
    expect(certificateNames(read('server.pem')).map((name) => name.value)).toEqual(more.map((name) => name.value))
    expect(issuedBy('server.pem', 'ca.pem')).toBe(true)
    expect(mode('server-key.pem')).toBe('600')
  })

  it('issues it again, by the same CA, at a start within 30 days of its end, and not before', async () => {
    await ensureDevCertificates(dir, base)
    const ca = read('ca.pem')
    const first = new X509Certificate(read('server.pem'))
    const end = new Date(first.validTo).getTime()
    const day = 86_400_000
    expect(await ensureDevCertificates(dir, base, new Date(end - 31 * day))).toMatchObject({ reissued: false })
    expect(new X509Certificate(read('server.pem')).serialNumber).toBe(first.serialNumber)
    expect(await ensureDevCertificates(dir, base, new Date(end - 29 * day))).toMatchObject({
      created: false,
      reissued: true,
    })
    const renewed = new X509Certificate(read('server.pem'))
    expect(renewed.serialNumber).not.toBe(first.serialNumber)
    expect(new Date(renewed.validTo).getTime()).toBeGreaterThan(end + 700 * day)
    expect(read('ca.pem')).toBe(ca)
    expect(issuedBy('server.pem', 'ca.pem')).toBe(true)
  })

  it('issues it again when its key is not the certificate’s (a pair half written before a crash)', async () => {
    await ensureDevCertificates(dir, base)
    writeFileSync(join(dir, 'server-key.pem'), (await createCertificateAuthority()).keyPem)
    expect(await ensureDevCertificates(dir, base)).toMatchObject({ created: false, reissued: true })
    expect(issuedBy('server.pem', 'ca.pem')).toBe(true)
  })

  it('keeps a certificate of an earlier version (no CA key) and says which names it lacks', async () => {
    await ensureDevCertificates(dir, names('localhost', '127.0.0.1', '::1'))
    rmSync(join(dir, 'ca-key.pem'))
    writeFileSync(join(dir, 'ca.pem'), read('ca.pem'), { mode: 0o600 })
    const before = ['ca.pem', 'server.pem', 'server-key.pem'].map(read)
    expect(await ensureDevCertificates(dir, base)).toMatchObject({
      created: false,
      reissued: false,
      missing: ['diag-host', '192.0.2.10', 'fd00::10'],
    })
    expect(['ca.pem', 'server.pem', 'server-key.pem'].map(read)).toEqual(before)
    // Made public all the same: that version's umask left it 0600.
    expect(mode('ca.pem')).toBe('644')
  })
})
