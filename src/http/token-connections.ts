import type { Socket } from 'node:net'

/**
 * Connections by the token they carried (docs/design.md, "Connections and hostile
 * clients", authenticated clients). A connection counts for the first valid token it
 * carries, until it closes:
 * - at most `perToken` connections per token;
 * - connections of tokens without the `webhook` scope (dashboards, scripts: "read") at
 *   most `shared`, the total bound less the share kept for the webhook, so that no read
 *   client, however many tokens it has, can take the connections Alertmanager needs.
 * A connection over a bound is answered 503 with Retry-After and closed (the webhook is
 * never answered 4xx for a bound: Alertmanager would drop the alerts).
 */
export type TokenRefusal = 'token_connections' | 'read_connections'

export class TokenConnections {
  private readonly byToken = new Map<string, number>()
  private readonly counted = new WeakSet<Socket>()
  private read = 0

  constructor(private readonly bounds: { perToken: number; shared: number }) {}

  /** Counts `socket` for `token` (once); or says which bound it would pass. */
  admit(socket: Socket, token: string, webhook: boolean): TokenRefusal | null {
    if (this.counted.has(socket)) return null
    const count = this.byToken.get(token) ?? 0
    if (count >= this.bounds.perToken) return 'token_connections'
    if (!webhook && this.read >= this.bounds.shared) return 'read_connections'
    this.counted.add(socket)
    this.byToken.set(token, count + 1)
    if (!webhook) this.read++
    socket.once('close', () => {
      const left = (this.byToken.get(token) ?? 1) - 1
      if (left > 0) this.byToken.set(token, left)
      else this.byToken.delete(token)
      if (!webhook) this.read--
    })
    return null
  }
}
