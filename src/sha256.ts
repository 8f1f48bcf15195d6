import * as crypto from 'node:crypto'

// crypto.hash (Node 20.12+) hashes in one call; createHash builds a Hash object first and
// costs twice as much for short inputs such as a token or a label set, which the webhook
// hashes on every request (docs/performance.md). Older Node 20 releases fall back.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: string) => string | Buffer }).hash

/** SHA-256 of the UTF-8 bytes of `text`, as lower-case hex. */
export function sha256Hex(text: string): string {
  return oneShot
    ? (oneShot('sha256', text, 'hex') as string)
    : crypto.createHash('sha256').update(text, 'utf8').digest('hex')
}

/** SHA-256 of the UTF-8 bytes of `text`, as bytes. */
export function sha256Bytes(text: string): Buffer {
  return oneShot
    ? (oneShot('sha256', text, 'buffer') as Buffer)
    : crypto.createHash('sha256').update(text, 'utf8').digest()
}
