import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { connect as netConnect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type TLSSocket, connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
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

function closedAfter(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.on('error', () => {})
    socket.once('close', () => resolve())
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

  /** GET from the honest address; resolves with the status and the body. */
  const honest = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path, ca, servername: 'localhost', agent: false, headers, timeout: 5000 },
        (res) => {
          let text = ''
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString()
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
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

  /** The server's count of connections refused for `reason`. */
  const refusals = async (reason: string) => {
    const text = (await honest('/metrics')).text
    return Number(
      new RegExp(`^diagnostic_connections_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0,
    )
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
      // The server closes all four (a client that keeps trickling is never let stay), in
      // the order of their bounds: the 10 s ones before the slow body's 30 s one, which
      // was still open when the slow headers were cut.
      const order: string[] = []
      const note = (name: string) => () => order.push(name)
      await Promise.all([
        rawClosed.then(note('raw')),
        idleClosed.then(note('idle')),
        headersClosed.then(note('headers')),
        bodyClosed.then(note('body')),
      ])
      expect(order.at(-1)).toBe('body')
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
    // The 32nd anonymous one is admitted once the bucket has a token again (refusals for
    // the rate meanwhile are retried): the authenticated connection does not count.
    for (;;) {
      const socket = await tls('127.0.0.5').catch(() => null)
      if (socket) {
        anonymous.push(socket)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const refusedBefore = await refusals('anonymous_connections')
    for (;;) {
      // The 33rd: over the bound of 32 open (after any refusal for the rate).
      await expect(tls('127.0.0.5')).rejects.toThrow()
      if ((await refusals('anonymous_connections')) > refusedBefore) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
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
    // The flood goes on until the server has cut 20 pipelining connections; meanwhile
    // the honest client's readiness probes are all answered 200 (each within its own 5 s
    // request bound).
    const statuses: number[] = []
    let peak = idle
    while ((await refusals('pipelined_requests')) < 20 || statuses.length < 10) {
      statuses.push((await honest('/health/ready')).status)
      peak = Math.max(peak, rssMiB(pid))
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(statuses.every((status) => status === 200)).toBe(true)
    expect(peak - idle).toBeLessThan(100)

    // SIGTERM in the middle of the flood: exit 0, which the process gives only when it
    // drained within DIAG_SHUTDOWN_TIMEOUT_MS (past it, it exits 1).
    service.child.kill('SIGTERM')
    const exit = await service.exited
    stop = true
    for (const socket of flooders) socket.destroy()
    await Promise.all(attackers)
    expect(exit.code).toBe(0)
  }, 45_000)
})

// Authenticated clients against the real process (docs/operations.md, "Connections and
// file descriptors"): a bound on all connections, on each token's, and a share that
// tokens without the webhook scope can never take. Each client from its own address, so
// that the bounds on addresses play no part.
describe('bounds that hold for authenticated clients', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-bounds-'))
  const tokens = {
    alertmanager: { token: 'alertmanager-token-000001', scopes: ['webhook'] },
    'dashboard-a': { token: 'dashboard-a-token-0000001', scopes: ['read'] },
    'dashboard-b': { token: 'dashboard-b-token-0000001', scopes: ['read'] },
    'dashboard-c': { token: 'dashboard-c-token-0000001', scopes: ['read'] },
    ops: { token: 'ops-read-token-000000001', scopes: ['read'] },
  }
  type Name = keyof typeof tokens
  const total = 48
  const perToken = 16
  const reserved = 8
  let service: ReturnType<typeof spawnService>
  let port: number
  let ca: Buffer
  const open: TLSSocket[] = []

  const connect = (localAddress: string): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      const tcp = netConnect({ host: '127.0.0.1', port, localAddress })
      const socket = tlsConnect({ socket: tcp, ca, servername: 'localhost' }, () => resolve(socket))
      socket.on('error', () => {})
      socket.once('error', reject)
      socket.once('close', () => reject(new Error('closed before the handshake')))
      open.push(socket)
    })

  /** One request on a kept-alive connection: its status, headers and body, and whether the server closed it. */
  const exchange = (socket: TLSSocket, name: Name, method = 'GET', path = '/api/v1/rules?limit=1', body = '') =>
    new Promise<{ status: number; head: string; body: string; closed: boolean }>((resolve) => {
      let data = Buffer.alloc(0)
      const done = (closed: boolean) => {
        socket.off('data', onData)
        socket.off('close', onClose)
        const text = data.toString('utf8')
        const split = text.indexOf('\r\n\r\n')
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
          head: text.slice(0, split),
          body: text.slice(split + 4),
          closed,
        })
      }
      const onData = (chunk: Buffer) => {
        data = Buffer.concat([data, chunk])
        const text = data.toString('latin1')
        const split = text.indexOf('\r\n\r\n')
        const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split))?.[1]
        if (split >= 0 && length !== undefined && data.length >= split + 4 + Number(length)) {
          // A refused connection is closed after its answer: onClose resolves then.
          if (!/\r\nconnection: close/i.test(text.slice(0, split))) done(false)
        }
      }
      const onClose = () => done(true)
      socket.on('data', onData)
      socket.once('close', onClose)
      const headers = [
        `${method} ${path} HTTP/1.1`,
        'Host: localhost',
        `Authorization: Bearer ${tokens[name].token}`,
        ...(body ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`] : []),
      ]
      socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`)
    })

  /** `count` connections from `address`, each carrying one request of `name`. */
  const connections = async (name: Name, address: string, count: number, request?: (n: number) => string) => {
    const sockets = await Promise.all(Array.from({ length: count }, () => connect(address)))
    const answers = await Promise.all(
      sockets.map((socket, n) =>
        request ? exchange(socket, name, 'POST', '/api/v1/alerts/alertmanager', request(n)) : exchange(socket, name),
      ),
    )
    return { sockets, answers }
  }

  const alertBody = (id: string) => JSON.stringify(webhook([alert({ id })]))

  // The server's exposition, read on one kept-alive connection of the `ops` token: it is
  // one of the read connections (so the others are one fewer), and is never refused.
  let monitor: TLSSocket | null = null
  const metrics = async () => {
    if (!monitor || monitor.destroyed) monitor = await connect('127.0.0.9')
    return (await exchange(monitor, 'ops', 'GET', '/metrics')).body
  }
  const metric = async (line: RegExp) => Number(line.exec(await metrics())?.[1] ?? Number.NaN)
  /** Waits until the server's exposition (rendered at most once a second) gives `line` the value. */
  const metricReaches = async (line: RegExp, value: number) => {
    const deadline = Date.now() + 10_000
    for (;;) {
      const seen = await metric(line)
      if (seen === value) return
      if (Date.now() > deadline) expect(seen).toBe(value)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  const refused = (reason: string) =>
    new RegExp(`^diagnostic_connections_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm')
  const openGauge = /^diagnostic_connections_open (\d+)$/m
  /** Closes every client connection and waits for the server to count them closed. */
  const closeAll = async () => {
    for (const socket of open.splice(0)) if (socket !== monitor) socket.destroy()
    if (monitor) open.push(monitor)
    await metricReaches(openGauge, 1)
  }

  beforeAll(async () => {
    const tokensFile = join(dir, 'tokens.json')
    writeFileSync(tokensFile, JSON.stringify(Object.entries(tokens).map(([name, entry]) => ({ name, ...entry }))))
    const env = loopbackEnv('unused-token-00000000001', {
      DIAG_WORKER: 'off',
      DIAG_API_TOKENS_FILE: tokensFile,
      DIAG_MAX_CONNECTIONS: String(total),
      DIAG_MAX_CONNECTIONS_PER_TOKEN: String(perToken),
      DIAG_WEBHOOK_RESERVED_CONNECTIONS: String(reserved),
      DIAG_QUEUE_CAPACITY: '1000',
    })
    delete (env as Record<string, string | undefined>).DIAG_API_TOKEN
    service = spawnService(env, dir)
    port = Number(new URL(await service.ready).port)
    ca = readFileSync(join(dir, 'data', 'tls', 'ca.pem'))
  })
  afterAll(() => {
    for (const socket of open) socket.destroy()
    service.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers a token over its connections 503 with Retry-After and closes the connection; the webhook too, never 4xx', async () => {
    const dashboard = await connections('dashboard-a', '127.0.0.11', perToken + 4)
    const ok = dashboard.answers.filter((a) => a.status === 200)
    const over = dashboard.answers.filter((a) => a.status !== 200)
    expect(ok).toHaveLength(perToken)
    expect(over).toHaveLength(4)
    for (const answer of over) {
      expect(answer.status).toBe(503)
      expect(answer.head).toMatch(/\r\nretry-after: \d+/i)
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'connection_limit' })
      expect(answer.closed).toBe(true)
    }
    await metricReaches(refused('token_connections'), 4)
    // The 16 admitted connections still serve their client.
    const again = await Promise.all(
      dashboard.sockets.filter((socket) => !socket.destroyed).map((socket) => exchange(socket, 'dashboard-a')),
    )
    expect(again.map((a) => a.status)).toEqual(Array(perToken).fill(200))

    // Alertmanager's token over its own bound: 503, which it retries; the 16 others stored.
    const sender = await connections('alertmanager', '127.0.0.14', perToken + 2, (n) => alertBody(`tok-${n}`))
    const statuses = sender.answers.map((a) => a.status).sort()
    expect(statuses).toEqual([...Array(perToken).fill(202), 503, 503])
    await closeAll()
  })

  it('keeps the webhook share: read tokens together never take it, Alertmanager does; past the total a connection is closed', async () => {
    const before = (await metric(refused('read_connections'))) || 0
    // Three dashboards try 16, 16 and 12 connections: 40 (48 less the 8 kept) are for
    // read tokens, and the ops token's monitoring connection is one of them.
    await metrics()
    const dashboards = [
      await connections('dashboard-a', '127.0.0.11', perToken),
      await connections('dashboard-b', '127.0.0.12', perToken),
      await connections('dashboard-c', '127.0.0.13', 12),
    ]
    const answers = dashboards.flatMap((d) => d.answers)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(total - reserved - 1)
    const over = answers.filter((a) => a.status !== 200)
    expect(over).toHaveLength(2 * perToken + 12 - (total - reserved - 1))
    for (const answer of over) {
      expect(answer.status).toBe(503)
      expect(answer.closed).toBe(true)
      expect(JSON.parse(answer.body).error).toBe('connection_limit')
    }
    await metricReaches(refused('read_connections'), before + over.length)
    await metricReaches(openGauge, total - reserved)

    // Alertmanager still connects, 8 times at once, and every alert is acknowledged.
    const sender = await connections('alertmanager', '127.0.0.14', reserved, (n) => alertBody(`share-${n}`))
    expect(sender.answers.map((a) => a.status)).toEqual(Array(reserved).fill(202))
    await metricReaches(openGauge, total)

    // All 48 taken: the next connection, whoever it is, is closed before its handshake.
    await expect(connect('127.0.0.15')).rejects.toThrow()
    await metricReaches(refused('total_connections'), 1)

    // Nothing already accepted was lost or changed: the dashboards' connections still
    // answer, and every acknowledged alert has its incident.
    const admitted = dashboards.flatMap((d, i) =>
      d.sockets
        .filter((socket) => !socket.destroyed)
        .map((socket) => ({ socket, name: (['dashboard-a', 'dashboard-b', 'dashboard-c'] as const)[i] as Name })),
    )
    expect(admitted).toHaveLength(total - reserved - 1)
    const again = await Promise.all(admitted.map(({ socket, name }) => exchange(socket, name)))
    expect(again.every((a) => a.status === 200)).toBe(true)
    const acknowledged = sender.answers.map((a) => JSON.parse(a.body).events[0].incidentId as string)
    await closeAll()
    const reader = await connect('127.0.0.16')
    const list = await exchange(reader, 'ops', 'GET', '/api/v1/incidents?limit=200')
    const ids = new Set((JSON.parse(list.body).incidents as Array<{ id: string }>).map((i) => i.id))
    for (const id of acknowledged) expect(ids.has(id)).toBe(true)
    expect(ids.size).toBe(perToken + reserved) // the first test's 16 and these 8
    await closeAll()
  })
})
