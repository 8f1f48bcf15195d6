import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

// Which excerpts rules may be tuned on, and which only measure (test/corpus/README.md).

export const corpusDir = new URL('.', import.meta.url).pathname

/** The fields of an excerpt a source family can be defined by. */
export type FamilyField = 'product' | 'library' | 'format'

export interface PartedExcerpt {
  id: string
  product: string
  library?: string | null
  format: string
  split: 'tuning' | 'held-out'
}

/**
 * The hash third: an excerpt is held out when the first byte of the SHA-256 of its id is
 * divisible by three. Nobody chooses it, so the held-out part cannot be picked to please.
 */
export const hashSplitOf = (id: string): PartedExcerpt['split'] =>
  createHash('sha256').update(id).digest().readUInt8(0) % 3 === 0 ? 'held-out' : 'tuning'

/** A held-out excerpt that was read while deciding a rule change, so it can no longer measure. */
export interface MovedToTuning {
  id: string
  reason: string
  /** When it was moved (YYYY-MM-DD). */
  date: string
}

/** A whole source family held out: its wording was never read to write a rule. */
export interface HeldOutFamily {
  name: string
  defines: FamilyField
  /** The exact value of that field for every excerpt of the family. */
  value: string
  /**
   * Words that name the family (lower case): an excerpt whose product or library (or format,
   * for a format family) holds one must belong to it, so a spelling cannot take it out.
   */
  keywords: string[]
  why: string
  /** When it was declared held out (YYYY-MM-DD). */
  declared: string
}

/** A family whose excerpts were read for a rule change: it measures nothing any more. */
export interface RetiredFamily extends HeldOutFamily {
  retired: string
  reason: string
}

export interface Families {
  heldOut: HeldOutFamily[]
  retired: RetiredFamily[]
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(corpusDir, file), 'utf8')) as T

export const loadMovedToTuning = (): MovedToTuning[] => readJson<MovedToTuning[]>('moved-to-tuning.json')
export const loadFamilies = (): Families => readJson<Families>('families.json')

/** The split an excerpt's `split` field must hold: its hash third, unless it was moved to tuning. */
export function assignedSplit(id: string, moved: readonly MovedToTuning[]): PartedExcerpt['split'] {
  return moved.some((m) => m.id === id) ? 'tuning' : hashSplitOf(id)
}

/** The fields a family's keywords are looked for in. */
export const keywordFields = (family: HeldOutFamily): FamilyField[] =>
  family.defines === 'format' ? ['format'] : ['product', 'library']

/** The held-out family an excerpt belongs to, decided by its fields (not by choice). */
export function heldOutFamilyOf(excerpt: PartedExcerpt, families: Families): HeldOutFamily | undefined {
  return families.heldOut.find((family) => (excerpt[family.defines] ?? null) === family.value)
}

/**
 * Where an excerpt counts: in a held-out source family, in the hash held-out third (or both),
 * or else in the tuning part, the only one rules may be tuned on.
 */
export interface Placement {
  tuning: boolean
  hashHeldOut: boolean
  family: HeldOutFamily | undefined
}

export function placementOf(excerpt: PartedExcerpt, families: Families): Placement {
  const family = heldOutFamilyOf(excerpt, families)
  const hashHeldOut = excerpt.split === 'held-out'
  return { tuning: !hashHeldOut && family === undefined, hashHeldOut, family }
}
