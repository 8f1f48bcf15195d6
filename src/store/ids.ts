import { v7 } from 'uuid'

/**
 * A UUID version 7 (RFC 9562) from the `uuid` package: 48 bits of Unix milliseconds, then
 * random bits. Ids made later sort later, so new rows land at the right edge of the
 * primary-key B-tree instead of at random pages, which keeps ingestion's writes local.
 * `now` is the instant of the transaction that stores the row, so an event's id and its
 * received_at agree.
 */
export function uuidv7(now = Date.now()): string {
  return v7({ msecs: now })
}
