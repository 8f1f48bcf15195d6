import { connect } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestService } from '../helpers/build.js'

describe('transport (D4)', () => {
  let t: TestService
  let port: number
  beforeAll(async () => {
    t = await build()
    port = Number(new URL(t.service.url).port)
  })
  afterAll(() => t.close())

  const handshake = (options: { minVersion?: 'TLSv1.2' | 'TLSv1.3'; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }) =>
    new Promise<{ protocol: string | null; authorized: boolean }>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost', ca: t.ca, ...options }, () => {
        resolve({ protocol: socket.getProtocol(), authorized: socket.authorized })
        socket.end()
      })
      socket.on('error', reject)
    })

  it('completes a TLS 1.3 handshake that verifies against the generated CA', async () => {
    expect(await handshake({ minVersion: 'TLSv1.3' })).toEqual({ protocol: 'TLSv1.3', authorized: true })
    const res = await t.call('GET', '/health/live')
    expect(res.status).toBe(200)
  })

  it('refuses a TLS 1.2 client', async () => {
    await expect(handshake({ maxVersion: 'TLSv1.2' })).rejects.toThrow(/protocol version|alert|handshake/i)
  })

  it('refuses a client that does not trust the certificate', async () => {
    await expect(
      new Promise((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, servername: 'localhost' }, () => resolve(socket))
        socket.on('error', reject)
      }),
    ).rejects.toThrow(/self.signed|unable to (verify|get)/i)
  })

  it('sets server timeouts so slow or idle clients cannot pin connections', () => {
    const server = t.service.app.server
    expect(server.headersTimeout).toBe(10_000)
    expect(server.requestTimeout).toBe(30_000)
    expect(server.keepAliveTimeout).toBe(10_000)
    expect(server.timeout).toBe(10_000) // idle socket timeout
  })

  const plainHttp = (request: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request))
      let data = ''
      socket.on('data', (chunk) => {
        data += chunk.toString('latin1')
      })
      socket.on('close', () => resolve(data))
      socket.on('error', () => resolve(data))
    })

  it('answers plain HTTP on the port with a 400 that says to use https, and nothing of the API', async () => {
    const answer = await plainHttp('GET /health/live HTTP/1.1\r\nHost: diag.example.org:8443\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(answer.split('\r\n\r\n')[1]).toBe(`This port speaks HTTPS: use https://diag.example.org:${port}/\n`)
    expect(answer).not.toContain('"status":"UP"')
  })

  it('names the address it was reached on when the Host header is missing or not a plain name', async () => {
    expect(await plainHttp('POST /api/v1/alerts/alertmanager HTTP/1.0\r\n\r\n')).toContain(
      `use https://127.0.0.1:${port}/\n`,
    )
    const forged = await plainHttp('GET / HTTP/1.1\r\nHost: <script>x</script>\r\n\r\n')
    expect(forged).toContain(`use https://127.0.0.1:${port}/\n`)
    expect(forged).not.toContain('<script>')
  })

  it('still refuses bytes that are neither HTTP nor TLS, without an answer', async () => {
    expect(await plainHttp('\x00\x01garbage\r\n')).toBe('')
  })
})
