import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InProcessAnalysis } from '../../src/worker/analysis/analysis-pool.js'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService } from '../helpers/build.js'
import { startSmtp, waitFor } from '../helpers/smtp.js'

// One live json-rules-engine instance (docs/design.md, "Rules"): a rule registered through
// the API is added to the running engine, and the next alert is diagnosed with it, without
// a rebuild or a restart. In-process, the service analyses on its main thread, so the test
// can hold the engine object itself (the threads get the same rule: analysis-pool tests).

describe('a rule registered on a running service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'diag-live-'))
  let t: TestService
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    mkdirSync(join(dir, 'logs'))
    writeFileSync(
      join(dir, 'logs', 'server.log'),
      '2026-11-23 05:00:00,001 ERROR [batch-1] c.e.ledger.Posting - LedgerLockTimeout: lock on account 4711 not granted\n',
    )
    writeFileSync(
      join(dir, 'inventory.json'),
      JSON.stringify({ instances: { 'app-01': { logs: ['logs/server.log'] } } }),
    )
    smtp = await startSmtp()
    t = await build({ DIAG_SMTP_URL: smtp.url, DIAG_INVENTORY: join(dir, 'inventory.json') })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const send = async (id: string) => {
    const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert({ id })]) })
    expect(res.status).toBe(202)
    const eventId: string = res.json().events[0].eventId
    return waitFor(() => smtp.mailsOf(eventId)[0], 20_000, 'the report')
  }

  it('is added to the same engine instance, and the next report names its branch', async () => {
    const engine = (t.service.analysis as InProcessAnalysis).engine
    const rulesBefore = engine.ruleCount
    const before = await send('live-before')
    expect(before.subject).toContain('TD-08')
    expect(before.text).toContain(`by engine ${engine.instance} (${rulesBefore} rules)`)

    const res = await t.call('POST', '/api/v1/rules', {
      json: {
        branch: 'OPS-31',
        ruleName: 'LedgerLockTimeout',
        category: 'database_persistence',
        targetSource: 'local_file',
        pattern: 'LedgerLockTimeout: lock on account',
        assessment: 'The ledger could not lock an account row in time.',
        classification: 'probable_cause',
        confidence: 'medium',
        recommendedActions: ['Find the transaction that holds the lock.'],
      },
    })
    expect(res.status).toBe(201)

    // The same object, one rule more: added, not rebuilt.
    expect((t.service.analysis as InProcessAnalysis).engine).toBe(engine)
    expect(engine.ruleCount).toBe(rulesBefore + 1)
    const after = await send('live-after')
    expect(after.subject).toContain('OPS-31 LedgerLockTimeout')
    expect(after.text).toContain(`by engine ${engine.instance} (${rulesBefore + 1} rules)`)
  })
})
