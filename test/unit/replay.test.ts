import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { packageRoot } from '../../src/paths.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { encodeBundle } from '../../src/rules/bundle/bundle-bounds.js'
import { Catalogue } from '../../src/rules/catalogue.js'
import { inProcessReplay, type ReplayJob, threadReplay } from '../../src/rules/replay/replay-runner.js'
import { ReplayBusyError, ReplayService } from '../../src/rules/replay/replay-service.js'
import type { ReplayBundle, ReplayResult } from '../../src/rules/replay/replay-types.js'
import { offlineCustomRule } from '../../src/rules/rule-input.js'
import { validRule } from '../helpers/rule-input.js'

// The replay's runners and its one-at-a-time gate (docs/design.md, "Replay").

const builtin = loadBuiltinRules()
const candidate = offlineCustomRule(
  validRule({
    ruleId: undefined,
    pattern: 'LedgerLockTimeout',
    classification: 'PROBABLE_CAUSE',
    confidence: 'MEDIUM',
  }),
  1,
  'test',
  '2026-01-01T00:00:00.000Z',
)
const job: ReplayJob = { builtin, custom: [], candidates: [candidate], requested: 10 }
const alert = { alertname: 'A', instance: 'app-01', severity: 'critical' }

async function* bundles(texts: string[]): AsyncGenerator<ReplayBundle> {
  for (const [i, text] of texts.entries()) {
    const encoded = await encodeBundle({ evidence: withLogText(emptyEvidence(alert), text), excerpt: null, values: {} })
    yield { eventId: `e${i}`, incidentId: `i${i}`, createdAt: 1000 - i, bytes: encoded.bytes }
  }
}
const texts = ['LedgerLockTimeout on account 1\n', 'java.lang.OutOfMemoryError: Java heap space\n', 'ok\n']
const stable = (result: ReplayResult) => ({ ...result, cost: result.cost.events })

describe('replay runners', () => {
  it('on a thread of its own gives what the main thread gives, and counts an unreadable bundle', async () => {
    const script = pathToFileURL(join(packageRoot, 'dist', 'src', 'rules', 'replay', 'replay-thread.js'))
    async function* withGarbage() {
      yield* bundles(texts)
      yield { eventId: 'bad', incidentId: 'i9', createdAt: 1, bytes: Buffer.from('not brotli') }
    }
    const here = await inProcessReplay.run(job, withGarbage())
    const there = await threadReplay(script).run(job, withGarbage())
    expect(stable(there)).toEqual(stable(here))
    expect(here).toMatchObject({ evaluated: 3, unreadable: 1, matches: 1, unchanged: 2 })
    // TD-08 (evidence, no finding) becomes the candidate; TD-02 stays and the candidate does not match it.
    expect(here.changed.map((c) => [c.eventId, c.before.branch, c.after.branch, c.outranked])).toEqual([
      ['e0', 'TD-08', 'TD-19', null],
    ])
  })

  it('a thread that fails fails the replay', async () => {
    const script = pathToFileURL(join(packageRoot, 'dist', 'src', 'rules', 'replay', 'no-such-thread.js'))
    await expect(threadReplay(script).run(job, bundles(texts))).rejects.toThrow()
  })
})

describe('the replay service', () => {
  it('runs one replay at a time: a second one while the first runs is refused, then accepted', async () => {
    const catalogue = new Catalogue(builtin.rules, [], builtin.versions)
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const service = new ReplayService(
      { checkAll: async () => ({ candidates: [candidate], catalogue }) },
      { newest: () => bundles(texts) },
      {
        run: async (j, b) => {
          await held
          return inProcessReplay.run(j, b)
        },
      },
    )
    const first = service.replay([], 10, 'p')
    await expect(service.replay([], 10, 'p')).rejects.toBeInstanceOf(ReplayBusyError)
    release()
    expect((await first).evaluated).toBe(3)
    expect((await service.replay([], 10, 'p')).evaluated).toBe(3)
  })
})
