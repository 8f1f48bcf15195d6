import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sha256Bytes, sha256Hex } from '../../src/sha256.js'

describe('sha256', () => {
  // The one-shot crypto.hash and createHash must agree: stored identities and token hashes
  // were computed with createHash.
  it.each(['', 'bench-token-000000000001', '[["alertname","Ä"],["host","主机"]]', 'x'.repeat(100_000)])(
    'equals createHash for %#',
    (text) => {
      const expected = createHash('sha256').update(text, 'utf8').digest()
      expect(sha256Hex(text)).toBe(expected.toString('hex'))
      expect(sha256Bytes(text).equals(expected)).toBe(true)
    },
  )
})
