import { readFileSync, statSync } from 'node:fs'
import { hostname, networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { certificateNames } from '../../src/tls/certificate-authority.js'
import { build, type TestService } from '../helpers/build.js'

/** The host's addresses another host can reach it by (link-local ones need a zone: not those). */
const reachableAddresses = Object.values(networkInterfaces())
  .flatMap((entries) => entries ?? [])
  .filter((entry) => !entry.internal && !/^fe[89ab][0-9a-f]:|^169\.254\./i.test(entry.address))
  .map((entry) => entry.address)

describe('the generated certificate beyond localhost (docs/operations.md, "The generated certificate, beyond localhost")', () => {
  let t: TestService
  let port: number
  beforeAll(async () => {
    // Every address, IPv4 and IPv6 (the default 0.0.0.0 is IPv4 only).
    t = await build({ DIAG_HOST: '::', DIAG_TLS_SANS: 'diag.example.org, 203.0.113.7,Diag-Alias.Example.org' })
    port = Number(new URL(t.service.url).port)
  })
  afterAll(() => t.close())

  /** A TLS 1.3 client that trusts only the generated CA and checks the name it connects by. */
  const verify = (host: string, servername?: string) =>
    new Promise<boolean>((resolve, reject) => {
      const socket = connect(
        { host, port, ca: t.ca, minVersion: 'TLSv1.3', ...(servername ? { servername } : {}) },
        () => {
          resolve(socket.authorized)
          socket.end()
        },
      )
      socket.on('error', reject)
    })

  it('names the host name, its addresses and DIAG_TLS_SANS', () => {
    const named = certificateNames(readFileSync(join(t.dataDir, 'tls', 'server.pem'), 'utf8')).map((n) => n.value)
    expect(reachableAddresses.length, 'this host has no address but loopback: the test needs one').toBeGreaterThan(0)
    expect(named).toEqual(
      expect.arrayContaining([
        'localhost',
        '127.0.0.1',
        '::1',
        hostname().toLowerCase(),
        ...reachableAddresses,
        'diag.example.org',
        '203.0.113.7',
        'diag-alias.example.org',
      ]),
    )
  })

  it('is verified by a client that connects by any address of the host, or by its name', async () => {
    for (const address of reachableAddresses) expect(await verify(address), address).toBe(true)
    expect(await verify('127.0.0.1', hostname())).toBe(true)
    expect(await verify('127.0.0.1', 'diag.example.org')).toBe(true)
    await expect(verify('127.0.0.1', 'elsewhere.example.org')).rejects.toThrow(/altnames|does not match/i)
  })

  it('leaves the CA readable by other users, through folders they may enter and not list', () => {
    const mode = (...path: string[]) => (statSync(join(t.dataDir, ...path)).mode & 0o777).toString(8)
    expect([
      mode(),
      mode('tls'),
      mode('tls', 'ca.pem'),
      mode('tls', 'server-key.pem'),
      mode('tls', 'ca-key.pem'),
    ]).toEqual(['711', '711', '644', '600', '600'])
  })
})
