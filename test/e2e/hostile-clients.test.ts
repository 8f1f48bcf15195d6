import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { connect as netConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type TLSSocket, connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loopbackEnv, spawnService } from '../helpers/service-process.js'

// Unauthenticated clients against the real process. The attackers
// connect from 127.0.0.2 and 127.0.0.3, the honest client from 127.0.0.1: the bounds are
// per client address, as they would be between hosts.
const token = 'hostile-clients-token-0001'
const shutdownTimeoutMs = 10_000

function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kib) / 1024
}

function closedAfter(socket: Socket): Promise<number> {
  const start = Date.now()
  return new Promise((resolve) => {
    socket.on('error', () => {})
    socket.once('close', () => resolve(Date.now() - start))
  })
}

describe('hostile unauthenticated clients', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-hostile-'))
  let service: ReturnType<typeof spawnService>
  let port: number
  let ca: Buffer

  const tls = (localAddress: string): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      // The TCP connection is made first, so that it leaves from the attacker's address.
      const tcp = netConnect({ host: '127.0.0.1', port, localAddress })
      const socket = tlsConnect({ socket: tcp, ca, servername: 'localhost' }, () => resolve(socket))
      socket.once('error', reject)
      socket.once('close', () => reject(new Error('closed before the handshake')))
    })

  /** GET from the honest address; resolves with the status and the time it took. */
  const honest = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; ms: number; text: string }>((resolve, reject) => {
      const start = Date.now()
      const req = httpsRequest(
        { host: '127.0.0.1', port, path, ca, servername: 'localhost', agent: false, headers, timeout: 5000 },
        (res) => {
          let text = ''
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString()
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - start, text }))
        },
      )
      req.on('timeout', () => req.destroy(new Error(`${path} took over 5 s`)))
      req.on('error', reject)
      req.end()
    })

  /** Waits for the exposition (rendered at most once a second) to show a line. */
  const metricMatches = async (line: RegExp) => {
    const deadline = Date.now() + 5000
    for (;;) {
      const text = (await honest('/metrics')).text
      if (line.test(text)) return
      if (Date.now() > deadline) expect(text).toMatch(line)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  beforeAll(async () => {
    service = spawnService(
      loopbackEnv(token, {
        DIAG_WORKER: 'off',
        DIAG_SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
      }),
      dir,
    )
    port = Number(new URL(await service.ready).port)
    ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
  })
  afterAll(() => {
    service.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('cuts idle, slow-header and slow-body clients at the documented timeouts', async () => {
    // No TLS handshake at all, and a handshake followed by nothing: the 10 s idle bound.
    const raw = netConnect({ host: '127.0.0.1', port, localAddress: '127.0.0.3' })
    const rawClosed = closedAfter(raw)
    const idle = await tls('127.0.0.3')
    const idleClosed = closedAfter(idle)

    // Headers trickling in (a byte every 2 s keeps the connection from being idle).
    const slowHeaders = await tls('127.0.0.3')
    let headerAnswer = ''
    slowHeaders.on('data', (chunk: Buffer) => {
      headerAnswer += chunk.toString()
    })
    const headersClosed = closedAfter(slowHeaders)
    slowHeaders.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n')
    const headerTicker = setInterval(() => slowHeaders.writable && slowHeaders.write('X'), 2000)

    // A body trickling in behind valid headers: the 30 s request bound.
    const slowBody = await tls('127.0.0.3')
    let bodyAnswer = ''
    slowBody.on('data', (chunk: Buffer) => {
      bodyAnswer += chunk.toString()
    })
    const bodyClosed = closedAfter(slowBody)
    slowBody.write(
      'POST /api/v1/alerts/alertmanager HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    )
    const bodyTicker = setInterval(() => slowBody.writable && slowBody.write(' '), 2000)

    try {
      const [rawMs, idleMs, headersMs, bodyMs] = await Promise.all([rawClosed, idleClosed, headersClosed, bodyClosed])
      expect(rawMs).toBeLessThan(12_000)
      expect(idleMs).toBeLessThan(12_000)
      expect(headersMs).toBeGreaterThan(9_000)
      expect(headersMs).toBeLessThan(12_500)
      expect(bodyMs).toBeGreaterThan(29_000)
      expect(bodyMs).toBeLessThan(32_500)
      // Both timed-out requests get the service's error body.
      for (const answer of [headerAnswer, bodyAnswer]) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /)
        expect(answer).toContain('{"error":"request_timeout"')
      }
    } finally {
      clearInterval(headerTicker)
      clearInterval(bodyTicker)
    }
  }, 45_000)

  it('holds at most 32 unauthenticated connections per client address', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 40 }, () => tls('127.0.0.2')))
    const open = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []))
    // The server's own count is the final state: 8 refused, no more (no earlier test
    // opens more than 32 from one address).
    await metricMatches(/^diagnostic_connections_refused_total\{reason="anonymous_connections"\} 8$/m)
    // A connection refused after its handshake completed on the client's side is seen
    // closed a moment later: wait until the client sees all 8 closed.
    const closed = () => attempts.length - open.filter((socket) => !socket.destroyed).length
    for (const deadline = Date.now() + 5000; closed() < 8 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const alive = open.filter((socket) => !socket.destroyed)
    expect(alive.length).toBe(32)
    expect((await honest('/health/ready')).status).toBe(200)
    for (const socket of alive) socket.destroy()
  })

  it('does not count a connection that carried a valid token', async () => {
    const authenticated = await tls('127.0.0.5')
    const answered = new Promise<string>((resolve) => {
      let text = ''
      authenticated.on('data', (chunk: Buffer) => {
        text += chunk.toString()
        if (text.includes('"rules"')) resolve(text)
      })
    })
    authenticated.write(`GET /api/v1/rules HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`)
    expect(await answered).toMatch(/^HTTP\/1\.1 200 /)
    // The handshake above took one of the 32 new connections a burst allows.
    const anonymous = await Promise.all(Array.from({ length: 31 }, () => tls('127.0.0.5')))
    await new Promise((resolve) => setTimeout(resolve, 500)) // the bucket refills
    anonymous.push(await tls('127.0.0.5')) // the 32nd anonymous one: admitted
    await expect(tls('127.0.0.5')).rejects.toThrow() // the 33rd: over the bound
    for (const socket of [authenticated, ...anonymous]) socket.destroy()
  })

  it('limits how fast one address opens new connections', async () => {
    let refused = 0
    for (let i = 0; i < 60; i++) {
      const socket = await tls('127.0.0.4').catch(() => null)
      if (socket) socket.destroy()
      else refused++
    }
    expect(refused).toBeGreaterThanOrEqual(5)
    await metricMatches(/^diagnostic_connections_refused_total\{reason="connection_rate"\} [1-9]/m)
  })

  it('keeps memory, readiness and shutdown within bounds under a pipelining flood that never reads', async () => {
    const pid = service.child.pid as number
    const idle = rssMiB(pid)
    const flooders: TLSSocket[] = []
    let stop = false
    const flood = async () => {
      const socket = await tls('127.0.0.2').catch(() => null)
      if (!socket) return
      flooders.push(socket)
      socket.pause() // never read a response
      socket.on('error', () => {})
      const burst = Buffer.from(
        'GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health/ready HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(
          20,
        ),
      )
      while (!stop && !socket.destroyed) {
        if (!socket.write(burst)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve))
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
    // Connections are re-opened as the server closes them, for 8 s.
    const attackers = Array.from({ length: 16 }, async () => {
      while (!stop) await flood()
    })
    const latencies: number[] = []
    let peak = idle
    const deadline = Date.now() + 8000
    while (Date.now() < deadline) {
      latencies.push((await honest('/health/ready')).ms)
      peak = Math.max(peak, rssMiB(pid))
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(Math.max(...latencies)).toBeLessThan(1000)
    expect(peak - idle).toBeLessThan(100)
    await metricMatches(/^diagnostic_connections_refused_total\{reason="pipelined_requests"\} [1-9]/m)

    // SIGTERM in the middle of the flood: a clean exit within the drain bound.
    const signalled = Date.now()
    service.child.kill('SIGTERM')
    const exit = await service.exited
    const tookMs = Date.now() - signalled
    stop = true
    for (const socket of flooders) socket.destroy()
    await Promise.all(attackers)
    expect(exit.code).toBe(0)
    expect(tookMs).toBeLessThan(shutdownTimeoutMs)
  }, 45_000)
})
