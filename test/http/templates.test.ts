import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { alert, webhook } from '../helpers/alerts.js'
import { build } from '../helpers/build.js'
import { waitFor } from '../helpers/smtp.js'

function templatesCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'diag-templates-'))
  cpSync(join(packageRoot, 'templates'), dir, { recursive: true })
  return dir
}

describe('report templates (D23)', () => {
  it('keeps the service not ready when a template does not compile', async () => {
    const dir = templatesCopy()
    writeFileSync(join(dir, 'diagnosis.html.hbs'), '<p>{{#each labels}}{{name}}</p>') // unclosed block
    const t = await build({ DIAG_TEMPLATES_DIR: dir })
    try {
      const ready = await t.call('GET', '/health/ready')
      expect(ready.status).toBe(503)
      expect(ready.json()).toEqual({ status: 'DOWN', reason: 'startup_failed' })
      const res = await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert()]) })
      expect(res.status).toBe(503)
      expect(await t.count('events')).toBe(0)
    } finally {
      await t.close()
    }
  })

  it('renders the e-mails from DIAG_TEMPLATES_DIR when it is set', async () => {
    const dir = templatesCopy()
    const text = readFileSync(join(dir, 'diagnosis.text.hbs'), 'utf8')
    writeFileSync(join(dir, 'diagnosis.text.hbs'), `ACME on-call runbook header\n${text}`)
    const t = await build({ DIAG_TEMPLATES_DIR: dir })
    try {
      await t.call('POST', '/api/v1/alerts/alertmanager', { json: webhook([alert({ id: 'tpl00001' })]) })
      const outbox = join(t.dataDir, 'outbox')
      const file = await waitFor(() => {
        try {
          return readdirSync(outbox).find((name) => name.endsWith('-diagnosis.eml'))
        } catch {
          return undefined
        }
      })
      expect(readFileSync(join(outbox, file), 'utf8')).toContain('ACME on-call runbook header')
    } finally {
      await t.close()
    }
  })
})
