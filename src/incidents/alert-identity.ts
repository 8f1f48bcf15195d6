import { sha256Hex } from '../sha256.js'

// How the service names an alert. Nothing here trusts the sender: the identity is computed
// from the labels (docs/design.md, "Incidents"); instants are read by src/instant.ts.

/**
 * The service's identity of an alert: SHA-256 of its label set, sorted by name. Alertmanager
 * names the same label set with a 64-bit FNV-1a fingerprint (below), which a sender can
 * collide on purpose; this hash it cannot.
 */
export function alertIdentity(labels: Record<string, string>, names = sortedNames(labels)): string {
  return sha256Hex(JSON.stringify(names.map((name) => [name, labels[name]])))
}

/**
 * Label names in the order both hashes use. Go sorts them by bytes; for the label-name
 * alphabet ([a-zA-Z0-9_]) that is the order of JavaScript's default sort.
 */
export function sortedNames(labels: Record<string, string>): string[] {
  return Object.keys(labels).sort()
}

/**
 * Alertmanager's fingerprint of a label set (prometheus/common's LabelSet.Fingerprint):
 * FNV-1a 64 over each name and value in name order, each followed by the byte 0xff, as 16
 * hex digits. Shown in reports so an SRE can find the alert in Alertmanager, and compared
 * with the fingerprint a sender claims.
 */
export function alertmanagerFingerprint(labels: Record<string, string>, names = sortedNames(labels)): string {
  const hash = new Fnv1a64()
  for (const name of names) {
    hash.add(name)
    hash.addByte(0xff)
    hash.add(labels[name] as string)
    hash.addByte(0xff)
  }
  return hash.hex()
}

/**
 * FNV-1a 64 in four 16-bit words, because the ingest path hashes every alert: the BigInt
 * arithmetic of @sindresorhus/fnv1a took 15 us a label set, a quarter of the duplicate
 * path (docs/performance.md). The unit test holds it equal to that library.
 */
class Fnv1a64 {
  // The offset basis 0xcbf29ce484222325, low word first.
  private w0 = 0x2325
  private w1 = 0x8422
  private w2 = 0x9ce4
  private w3 = 0xcbf2
  private static readonly encoder = new TextEncoder()

  add(text: string): void {
    // Labels are mostly ASCII, whose UTF-8 bytes are its char codes: no encoding needed.
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) >= 0x80) {
        for (const byte of Fnv1a64.encoder.encode(text.slice(i))) this.addByte(byte)
        return
      }
      this.addByte(text.charCodeAt(i))
    }
  }

  /** h ^= byte; h *= 0x100000001b3 (mod 2^64): 0x1b3 times each word, plus h << 40. */
  addByte(byte: number): void {
    this.w0 ^= byte
    const t0 = this.w0 * 0x1b3
    let t1 = this.w1 * 0x1b3
    let t2 = this.w2 * 0x1b3 + (this.w0 << 8)
    const t3 = this.w3 * 0x1b3 + (this.w1 << 8)
    t1 += t0 >>> 16
    t2 += t1 >>> 16
    this.w0 = t0 & 0xffff
    this.w1 = t1 & 0xffff
    this.w2 = t2 & 0xffff
    this.w3 = (t3 + (t2 >>> 16)) & 0xffff
  }

  hex(): string {
    const word = (w: number) => (w + 0x10000).toString(16).slice(1)
    return word(this.w3) + word(this.w2) + word(this.w1) + word(this.w0)
  }
}
