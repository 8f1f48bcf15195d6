import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BuiltinRulesError, builtinRulesDir } from './builtin-loader.js'

/**
 * The SHA-256 of every shipped rule file, as `sha256sum` writes it (`<hex>  <name>`),
 * committed beside them. A test fails when a file no longer matches its pin, and another
 * proves every shipped pattern safe, so a start may trust the pinned bytes without proving
 * them again (docs/design.md, D29).
 */
export const pinsFileName = 'SHA256SUMS'

/** The pinned hash of each shipped file, by file name. */
export function pinnedHashes(dir = builtinRulesDir): Map<string, string> {
  const file = join(dir, pinsFileName)
  if (!existsSync(file)) throw new BuiltinRulesError(`${file}: missing`)
  const pins = new Map<string, string>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    const pin = /^([0-9a-f]{64}) [ *]([\w.-]+)$/.exec(line)
    if (!pin) throw new BuiltinRulesError(`${file}: not a sha256sum line: ${line}`)
    pins.set(pin[2] as string, pin[1] as string)
  }
  return pins
}

/**
 * The bytes of a shipped file, only if they are the pinned ones; otherwise a
 * BuiltinRulesError naming the file (exit 78 at start: server.ts).
 */
export function readPinnedFile(name: string, dir = builtinRulesDir, pins = pinnedHashes(dir)): Buffer {
  const file = join(dir, name)
  const pinned = pins.get(name)
  if (pinned === undefined) throw new BuiltinRulesError(`${file}: not pinned in builtin-rules/${pinsFileName}`)
  if (!existsSync(file)) throw new BuiltinRulesError(`${file}: missing`)
  const bytes = readFileSync(file)
  const actual = createHash('sha256').update(bytes).digest('hex')
  if (actual !== pinned) {
    throw new BuiltinRulesError(
      `${file}: modified after it was shipped: its SHA-256 is ${actual}, builtin-rules/${pinsFileName} pins ${pinned}; restore it, or register the rule through the API`,
    )
  }
  return bytes
}

/** Checks every pinned file (at start, before the catalogue is built from them); returns their names. */
export function verifyShippedRules(dir = builtinRulesDir): string[] {
  const pins = pinnedHashes(dir)
  for (const name of pins.keys()) readPinnedFile(name, dir, pins)
  return [...pins.keys()]
}
