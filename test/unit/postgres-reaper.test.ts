import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { reapOrphans } from '../helpers/postgres.js'

// The test PostgreSQL clusters of a test process that died (test/helpers/postgres.ts) are
// removed by the next one that starts a cluster; a live process's cluster is left alone.

it("removes a dead test process's cluster and leaves a live one's and an unclaimed one", () => {
  const dead = spawnSync('true').pid
  if (!dead) throw new Error('`true` did not run')
  const cluster = (owner: number | null) => {
    const parent = mkdtempSync(join(tmpdir(), 'diag-pg-'))
    mkdirSync(join(parent, 'data'))
    if (owner !== null) writeFileSync(join(parent, 'owner.pid'), String(owner))
    return parent
  }
  const orphan = cluster(dead)
  const ours = cluster(process.pid)
  const unclaimed = cluster(null)
  try {
    reapOrphans()
    expect(existsSync(orphan)).toBe(false)
    expect(existsSync(ours)).toBe(true)
    expect(existsSync(unclaimed)).toBe(true)
  } finally {
    for (const dir of [orphan, ours, unclaimed]) rmSync(dir, { recursive: true, force: true })
  }
})
