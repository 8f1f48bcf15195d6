import { randomUUID } from 'node:crypto'

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made
 * later sort later, so new rows land at the right edge of the primary-key B-tree instead
 * of at random pages, which keeps ingestion's writes local. The random part comes from
 * randomUUID (pooled entropy); its variant bits are the same for version 4 and 7.
 */
export function uuidv7(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0')
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`
}
