import { connect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sharedExposition } from '../../src/http/routes/health.js'
import { build, type TestService } from '../helpers/build.js'

// Requests Node's parser refuses before any route runs get the
// service's error body too. Point 1: the exposition is rendered once for many scrapes.
describe('errors raised by the HTTP parser', () => {
  let t: TestService
  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())

  /** Sends raw bytes over TLS and returns everything the server answers before it closes. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(t.service.url)
      const socket = connect({ host: '127.0.0.1', port: Number(port), ca: t.ca, servername: 'localhost' }, () =>
        socket.write(bytes),
      )
      let answer = ''
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString()
      })
      socket.on('close', () => resolve(answer))
      socket.on('error', reject)
    })

  const body = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))

  it('answers a malformed request line with 400 malformed_request', async () => {
    const answer = await raw('GET /health/live HTTP/9.9 nonsense\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(answer).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/)
    expect(body(answer)).toEqual({ error: 'malformed_request', message: 'The request is not valid HTTP/1.1.' })
  })

  it('answers oversized headers with 431 headers_too_large', async () => {
    const answer = await raw(`GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(answer).toMatch(/^HTTP\/1\.1 431 /)
    expect(body(answer)).toEqual({ error: 'headers_too_large', message: 'The request headers are too large.' })
  })
})

describe('the shared exposition', () => {
  it('renders once per interval however many scrapes come, and again after it', async () => {
    let renders = 0
    let now = 0
    const exposition = sharedExposition(
      async () => `rendering ${++renders}`,
      1000,
      () => now,
    )
    const texts = await Promise.all(Array.from({ length: 1000 }, () => exposition()))
    expect(new Set(texts)).toEqual(new Set(['rendering 1']))
    now = 999
    expect(await exposition()).toBe('rendering 1')
    now = 1000
    expect(await exposition()).toBe('rendering 2')
    expect(renders).toBe(2)
  })

  it('does not keep a failed rendering', async () => {
    let fail = true
    const exposition = sharedExposition(
      async () => {
        if (fail) throw new Error('collect failed')
        return 'ok'
      },
      1000,
      () => 0,
    )
    await expect(exposition()).rejects.toThrow('collect failed')
    fail = false
    expect(await exposition()).toBe('ok')
  })
})
