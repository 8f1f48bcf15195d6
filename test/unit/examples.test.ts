import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAjv, loadSchema } from '../../src/ajv.js'
import { loadInventory } from '../../src/evidence/inventory.js'
import { parseJvmMetrics } from '../../src/evidence/metrics-collector.js'
import { packageRoot, startScript } from '../../src/paths.js'
import { checkTemplates } from '../../src/report/template-check.js'
import { loadTemplates } from '../../src/report/templates.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { parseRuleInput, readRulepack } from '../../src/rules/rule-input.js'
import { parsePattern } from '../../src/text/pattern.js'
import { realTool } from '../helpers/real-tools.js'

const examples = join(packageRoot, 'examples')

describe('examples/ are valid', () => {
  it('has an inventory whose every log file and spool folder exists', () => {
    const inventory = loadInventory(join(examples, 'inventory.json'))
    for (const instance of ['app-01', 'app-02', 'app-03', 'app-04']) {
      const sources = inventory.sources(instance)
      expect(sources).toBeDefined()
      for (const log of sources?.logs ?? []) expect(existsSync(log)).toBe(true)
      expect(existsSync(sources?.spoolDir ?? '')).toBe(true)
    }
  })

  it.each(['webhook-firing.json', 'webhook-resolved.json', 'webhook-multi.json'])(
    'has a valid version-4 payload %s',
    (file) => {
      const validate = createAjv().compile(loadSchema('alertmanager-webhook-v4.schema.json'))
      expect(validate(JSON.parse(readFileSync(join(examples, file), 'utf8'))), JSON.stringify(validate.errors)).toBe(
        true,
      )
    },
  )

  it('has a spool of valid event-record-v1 lines', () => {
    const validate = createAjv().compile(loadSchema('event-record-v1.schema.json'))
    const lines = readFileSync(join(examples, 'spool', 'container-events.jsonl'), 'utf8')
      .trim()
      .split('\n')
    for (const line of lines) expect(validate(JSON.parse(line))).toBe(true)
  })

  it('has a rulepack that passes the schema and the pattern safety check', async () => {
    const safety = new PatternSafety()
    for (const body of readRulepack(join(examples, 'rulepack.json'))) {
      const rule = parseRuleInput(body)
      expect(await safety.verdict(parsePattern(rule.pattern))).toEqual({ safe: true })
    }
  })

  it.each(['app-01', 'app-02', 'app-03', 'app-04'])(
    'has sample endpoints for %s whose metrics carry every JVM fact the evidence reads',
    (instance) => {
      const dir = join(examples, 'endpoints', instance)
      const facts = parseJvmMetrics(readFileSync(join(dir, 'metrics'), 'utf8'))
      for (const [fact, value] of Object.entries(facts)) expect(value, fact).not.toBeNull()
      const health = JSON.parse(readFileSync(join(dir, 'health-response.json'), 'utf8'))
      expect([200, 503]).toContain(health.status)
      expect(typeof health.body).toBe('object')
    },
  )

  it('has a template override that compiles and renders', () => {
    const templates = loadTemplates(join(examples, 'templates'))
    expect(() => checkTemplates(templates)).not.toThrow()
  })

  it('has an Alertmanager config amtool accepts and alerting rules promtool accepts', () => {
    const amtool = realTool('amtool', 'prometheus-alertmanager')
    const promtool = realTool('promtool', 'prometheus')
    const am = spawnSync(amtool, ['check-config', join(examples, 'deploy', 'alertmanager.yml')], { encoding: 'utf8' })
    expect(am.status, am.stdout + am.stderr).toBe(0)
    const rules = spawnSync(promtool, ['check', 'rules', join(examples, 'deploy', 'diagnostic-service-alerts.yml')], {
      encoding: 'utf8',
    })
    expect(rules.status, rules.stdout + rules.stderr).toBe(0)
  })

  it('has a systemd unit systemd-analyze verifies without a warning', () => {
    const analyze = realTool('systemd-analyze', 'systemd')
    // The unit runs the start script of an installation in /opt; verified with this checkout's.
    const unit = join(mkdtempSync(join(tmpdir(), 'diag-unit-')), 'diagnostic-service.service')
    const shipped = readFileSync(join(examples, 'deploy', 'diagnostic-service.service'), 'utf8')
    const installed = 'ExecStart=/opt/diagnostic-service/bin/diagnostic-service\n'
    expect(shipped).toContain(installed)
    writeFileSync(unit, shipped.replace(installed, `ExecStart=${startScript}\n`))
    const verified = spawnSync(analyze, ['verify', unit], { encoding: 'utf8' })
    expect(verified.status, verified.stderr).toBe(0)
    expect(verified.stdout + verified.stderr).toBe('')
  })

  it("routes only alerts with the webhook's six required labels to the service, as docs/operations.md shows", () => {
    const amtool = realTool('amtool', 'prometheus-alertmanager')
    const required = (loadSchema('alertmanager-webhook-v4.schema.json') as any).$defs.alert.properties.labels
      .required as string[]
    const documented = /## A refused webhook[\s\S]*?```yaml\n([\s\S]*?)```/.exec(
      readFileSync(join(packageRoot, 'docs', 'operations.md'), 'utf8'),
    )?.[1]
    expect(documented).toBeDefined()
    const dir = mkdtempSync(join(tmpdir(), 'diag-route-'))
    const configs = [join(examples, 'deploy', 'alertmanager.yml'), join(dir, 'documented.yml')]
    writeFileSync(configs[1] as string, documented as string)
    const labels = Object.fromEntries(required.map((name) => [name, `${name}-value`]))
    const route = (config: string, set: Record<string, string>) => {
      const run = spawnSync(
        amtool,
        ['config', 'routes', 'test', `--config.file=${config}`, ...Object.entries(set).map(([k, v]) => `${k}=${v}`)],
        { encoding: 'utf8' },
      )
      expect(run.status, run.stdout + run.stderr).toBe(0)
      return run.stdout
    }
    for (const config of configs) {
      const check = spawnSync(amtool, ['check-config', config], { encoding: 'utf8' })
      expect(check.status, check.stdout + check.stderr).toBe(0)
      expect(route(config, labels)).toContain('diagnostic-service')
      for (const name of required) {
        const { [name]: _missing, ...without } = labels
        expect(route(config, without), `without ${name}`).not.toContain('diagnostic-service')
      }
    }
  })
})
