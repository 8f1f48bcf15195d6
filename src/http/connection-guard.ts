import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { TokenConnections, type TokenRefusal } from './token-connections.js'

/**
 * Bounds on what one client can make the server hold before it authenticates
 * (docs/design.md, "Connections and hostile clients"):
 * - connections per client address that have not (yet) carried a valid token, both open at
 *   once and opened per second (a token bucket: every TLS handshake costs CPU and memory,
 *   so a client that reconnects as fast as it is cut off must not churn them);
 * - requests in flight on one connection (HTTP/1.1 pipelining): an honest client waits
 *   for its answers, so a deeper pipeline is a peer that does not read;
 * - unread response bytes on one connection: a new request on a connection whose peer has
 *   not taken what it was already sent is not answered.
 * Over a bound the connection is closed: nothing more is produced for it.
 *
 * And bounds that hold for every client, authenticated or not, so that connections never
 * take the descriptors the process needs (docs/operations.md, "Connections and file
 * descriptors"): all connections open at once (`maxConnections`, below the open-files
 * limit; over it a new connection is closed before its handshake), and the per-token
 * bounds of token-connections.ts.
 */
export interface ConnectionLimits {
  anonymousConnectionsPerAddress: number
  /** New connections per address and second, in bursts of up to `anonymousConnectionsPerAddress`. */
  newConnectionsPerAddressPerSecond: number
  requestsInFlightPerConnection: number
  unreadBytesPerConnection: number
  /** All connections open at once; 0: no bound (the service always sets one, connection-budget.ts). */
  maxConnections: number
  connectionsPerToken: number
  /** Connections only tokens with the `webhook` scope may take, out of `maxConnections`. */
  webhookReservedConnections: number
}

export const defaultConnectionLimits: ConnectionLimits = {
  anonymousConnectionsPerAddress: 32,
  newConnectionsPerAddressPerSecond: 16,
  requestsInFlightPerConnection: 8,
  unreadBytesPerConnection: 1024 * 1024,
  maxConnections: 0,
  connectionsPerToken: 64,
  webhookReservedConnections: 64,
}

export type ConnectionRefusal =
  | 'total_connections'
  | 'anonymous_connections'
  | 'connection_rate'
  | 'pipelined_requests'
  | 'unread_responses'
  | TokenRefusal

const maxTrackedAddresses = 4096

/** A connection's key, the same for the TCP socket and the TLS socket above it. */
const keyOf = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`

export class ConnectionGuard {
  private readonly anonymousByAddress = new Map<string, number>()
  /** Keys of open connections that have not carried a valid token. */
  private readonly anonymous = new Set<string>()
  private readonly inFlight = new WeakMap<Socket, number>()
  /** Per address: the tokens left and when they were counted (ms). */
  private readonly buckets = new Map<string, { tokens: number; at: number }>()
  private readonly tokens: TokenConnections
  private open = 0

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly onRefused: (reason: ConnectionRefusal) => void = () => {},
    private readonly onOpen: (open: number) => void = () => {},
  ) {
    const { maxConnections: total, connectionsPerToken: perToken, webhookReservedConnections: reserved } = limits
    this.tokens = new TokenConnections({
      perToken,
      shared: total > 0 ? Math.max(0, total - reserved) : Number.POSITIVE_INFINITY,
    })
  }

  /** For the server's 'connection' event (raw TCP, before the TLS handshake). */
  accept(socket: Socket): void {
    const address = socket.remoteAddress ?? ''
    const count = this.anonymousByAddress.get(address) ?? 0
    const {
      anonymousConnectionsPerAddress: most,
      newConnectionsPerAddressPerSecond: rate,
      maxConnections,
    } = this.limits
    const refusal =
      maxConnections > 0 && this.open >= maxConnections
        ? 'total_connections'
        : most > 0 && count >= most
          ? 'anonymous_connections'
          : rate === 0 || this.takeToken(address)
            ? null
            : 'connection_rate'
    if (refusal) {
      this.onRefused(refusal)
      socket.destroy()
      return
    }
    const key = keyOf(socket)
    this.anonymous.add(key)
    this.anonymousByAddress.set(address, count + 1)
    this.onOpen(++this.open)
    socket.once('close', () => {
      this.forget(key, address)
      this.onOpen(--this.open)
    })
  }

  /**
   * A connection that carried a valid token no longer counts against its address, and the
   * new-connection token it took is given back: an authenticated client that opens a
   * connection per request (a script, `appserver-diag rules push`) is never slowed down
   * by the bounds on addresses. It counts for its token instead: over a per-token bound
   * the refusal is returned (and counted), and the request is to be answered 503 and the
   * connection closed.
   */
  authenticated(socket: Socket, token: string, webhook: boolean): TokenRefusal | null {
    const refusal = this.tokens.admit(socket, token, webhook)
    if (refusal) {
      this.onRefused(refusal)
      return refusal
    }
    const address = socket.remoteAddress ?? ''
    if (!this.forget(keyOf(socket), address)) return null
    const bucket = this.buckets.get(address)
    if (bucket) bucket.tokens += 1 // the next refill caps it
    return null
  }

  /**
   * Wraps the request handler: a request over a bound closes its connection instead of
   * being handled. Returns whether the request goes on.
   */
  admit(request: IncomingMessage, response: ServerResponse): boolean {
    const socket = request.socket
    // The rest of a refused connection's pipeline is still parsed: drop it uncounted.
    if (socket.destroyed) return false
    const pending = (this.inFlight.get(socket) ?? 0) + 1
    const reason: ConnectionRefusal | null =
      pending > this.limits.requestsInFlightPerConnection
        ? 'pipelined_requests'
        : socket.writableLength > this.limits.unreadBytesPerConnection
          ? 'unread_responses'
          : null
    if (reason) {
      this.onRefused(reason)
      socket.destroy()
      return false
    }
    this.inFlight.set(socket, pending)
    response.once('close', () => this.inFlight.set(socket, (this.inFlight.get(socket) ?? 1) - 1))
    return true
  }

  private takeToken(address: string, now = Date.now()): boolean {
    const { newConnectionsPerAddressPerSecond: rate } = this.limits
    const burst = Math.max(this.limits.anonymousConnectionsPerAddress, rate)
    const refill = (bucket: { tokens: number; at: number }) =>
      Math.min(burst, bucket.tokens + ((now - bucket.at) * rate) / 1000)
    if (this.buckets.size >= maxTrackedAddresses) {
      // Addresses whose bucket has refilled are as good as new: forget them.
      for (const [key, bucket] of this.buckets) if (refill(bucket) >= burst) this.buckets.delete(key)
      // Still full (many addresses at once): the oldest are forgotten, so memory stays bounded.
      for (const key of this.buckets.keys()) {
        if (this.buckets.size < maxTrackedAddresses) break
        this.buckets.delete(key)
      }
    }
    const bucket = this.buckets.get(address) ?? { tokens: burst, at: now }
    bucket.tokens = refill(bucket)
    bucket.at = now
    this.buckets.set(address, bucket)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }

  private forget(key: string, address: string): boolean {
    if (!this.anonymous.delete(key)) return false
    const count = (this.anonymousByAddress.get(address) ?? 1) - 1
    if (count > 0) this.anonymousByAddress.set(address, count)
    else this.anonymousByAddress.delete(address)
    return true
  }
}
