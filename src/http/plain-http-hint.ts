import type { Server } from 'node:https'
import type { Socket } from 'node:net'

/**
 * A TLS connection starts with a handshake record (first byte 0x16); an HTTP request starts
 * with its method, in capital letters. Anything else goes to TLS, which refuses it as before.
 */
const startsLikeHttp = (byte: number | undefined) => byte !== undefined && byte >= 0x41 && byte <= 0x5a

/** The host a client asked for, when it is a plain name or address (never echoed otherwise). */
function requestedHost(head: string, socket: Socket): string {
  const header = /\r\nhost:[ \t]*([^\r\n]*)/i.exec(head)?.[1]?.trim() ?? ''
  const host = header.replace(/:\d+$/, '')
  if (/^([a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])$/i.test(host)) return host
  const local = socket.localAddress ?? 'localhost'
  return local.includes(':') ? `[${local}]` : local
}

function hint(head: string, socket: Socket): string {
  const body = `This port speaks HTTPS: use https://${requestedHost(head, socket)}:${socket.localPort}/\n`
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: text/plain; charset=utf-8',
    'X-Content-Type-Options: nosniff',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/**
 * Plain HTTP to the HTTPS port (an Alertmanager `url: http://...`) gets one line that says
 * what to use, instead of a connection closed without a word (docs/operations.md, "TLS
 * beyond localhost"). The server's own TLS listener is given each connection after its
 * first bytes were looked at and put back, so TLS itself (TLS 1.3 only, the handshake
 * timeout, client certificates) is unchanged. `accept` (the connection guard) sees every
 * connection first; a connection that sends nothing is closed after `idleMs`, as the
 * handshake timeout would have.
 */
export function answerPlainHttp(server: Server, accept: (socket: Socket) => void, idleMs: number): void {
  const tlsListeners = server.listeners('connection') as Array<(socket: Socket) => void>
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    accept(socket)
    if (socket.destroyed) return
    // Until TLS owns the socket, its errors (a reset) are this code's to swallow.
    socket.on('error', () => socket.destroy())
    socket.setTimeout(idleMs, () => socket.destroy())
    socket.once('data', (chunk: Buffer) => {
      if (startsLikeHttp(chunk[0])) {
        // The rest of the request is read and dropped: a socket closed with unread bytes is
        // reset, and the client would not see the answer. The idle bound still ends it.
        socket.on('data', () => {})
        socket.end(hint(chunk.toString('latin1'), socket))
        return
      }
      socket.pause()
      socket.setTimeout(0)
      socket.unshift(chunk)
      for (const listener of tlsListeners) listener.call(server, socket)
    })
  })
}
