import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BuiltinRulesError, builtinRulesDir } from '../../src/rules/builtin-loader.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { RulesService } from '../../src/rules/rules-service.js'
import { seedCustomRules } from '../../src/rules/seed.js'
import { pinnedHashes, verifyShippedRules } from '../../src/rules/shipped-rules.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { RulesRepository } from '../../src/store/sqlite/rules-repository.js'
import { PatternIndex } from '../../src/text/pattern-index.js'

// D29: shipped rule files are trusted as shipped, because their SHA-256 is pinned in
// builtin-rules/SHA256SUMS and their patterns are proven safe in CI
// (test/unit/pattern-safety.test.ts, "finds every shipped pattern safe").

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

/** A copy of builtin-rules/ that a test may change. */
function copyOfShippedRules(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'diag-shipped-')), 'builtin-rules')
  cpSync(builtinRulesDir, dir, { recursive: true })
  return dir
}

function newService() {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-seed-')), 'rules.db'))
  const safety = new PatternSafety()
  return { db, safety, service: new RulesService(new RulesRepository(db), safety) }
}

describe('the pinned shipped rule files (D29)', () => {
  afterEach(() => vi.restoreAllMocks())

  it('pins every file of builtin-rules/ by the SHA-256 of its bytes', () => {
    const pins = pinnedHashes()
    const files = readdirSync(builtinRulesDir)
      .filter((name) => name.endsWith('.json'))
      .sort()
    expect([...pins.keys()].sort()).toEqual(files)
    expect(files).toEqual(expect.arrayContaining(['seed-rulepack.json', 'td.json', 'corroboration.json']))
    for (const name of files) {
      // A shipped rule edited without re-pinning: prove it (npm test) and pin it again with
      // `cd builtin-rules && sha256sum *.json > SHA256SUMS` (CONTRIBUTING.md).
      expect({ name, sha256: sha256(join(builtinRulesDir, name)) }).toEqual({ name, sha256: pins.get(name) })
    }
    expect(verifyShippedRules()).toEqual(files)
  })

  it('refuses a modified shipped file, naming it and both hashes', () => {
    const dir = copyOfShippedRules()
    const file = join(dir, 'seed-rulepack.json')
    writeFileSync(file, readFileSync(file, 'utf8').replace('PoolExhaustedException', 'PoolExhausted(?:Exception)?'))
    const refusal = () => verifyShippedRules(dir)
    expect(refusal).toThrow(BuiltinRulesError)
    expect(refusal).toThrow(
      `${file}: modified after it was shipped: its SHA-256 is ${sha256(file)}, builtin-rules/SHA256SUMS pins ${pinnedHashes().get('seed-rulepack.json')}`,
    )
    rmSync(dir, { recursive: true, force: true })
  })

  it('refuses a missing shipped file and a missing list of hashes, naming them', () => {
    const dir = copyOfShippedRules()
    rmSync(join(dir, 'gc.json'))
    expect(() => verifyShippedRules(dir)).toThrow(`${join(dir, 'gc.json')}: missing`)
    rmSync(join(dir, 'SHA256SUMS'))
    expect(() => verifyShippedRules(dir)).toThrow(`${join(dir, 'SHA256SUMS')}: missing`)
    rmSync(dir, { recursive: true, force: true })
  })

  it('does not seed from a modified seed rulepack: nothing is registered', async () => {
    const dir = copyOfShippedRules()
    const file = join(dir, 'seed-rulepack.json')
    writeFileSync(file, readFileSync(file, 'utf8').replace('"TD-09"', '"TD-90"'))
    const { db, service } = newService()
    await expect(seedCustomRules(service, dir)).rejects.toThrow(
      new BuiltinRulesError(
        `${file}: modified after it was shipped: its SHA-256 is ${sha256(file)}, builtin-rules/SHA256SUMS pins ${pinnedHashes().get('seed-rulepack.json')}; restore it, or register the rule through the API`,
      ),
    )
    expect(service.catalogue.custom).toHaveLength(0)
    db.close()
  })

  it('seeds the pinned rulepack without proving its patterns again, with the CPU saturated by busy threads', async () => {
    // The proof was made in CI for exactly these bytes; at start nothing is measured, so
    // nothing a busy host does can fail the start (issue: a first start on a loaded 2-core host).
    const scans = vi.spyOn(PatternIndex.prototype, 'scan')
    const { db, safety, service } = newService()
    const verdicts = vi.spyOn(safety, 'verdict')
    const busy = Array.from({ length: availableParallelism() * 2 }, () => new Worker('for (;;) {}', { eval: true }))
    try {
      await Promise.all(busy.map((worker) => new Promise((resolve) => worker.once('online', resolve))))
      expect(await seedCustomRules(service)).toBe(10)
    } finally {
      await Promise.all(busy.map((worker) => worker.terminate()))
    }
    expect(verdicts).not.toHaveBeenCalled()
    expect(scans).not.toHaveBeenCalled()
    expect(service.catalogue.custom.map((rule) => rule.createdBy)).toEqual(Array(10).fill('seed'))
    db.close()
  })
})
