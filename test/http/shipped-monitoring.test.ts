import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packageRoot } from '../../src/paths.js'
import { build, type TestService } from '../helpers/build.js'
import { realTool } from '../helpers/real-tools.js'

// The alerting rules and the Grafana dashboard of examples/ watch the service itself: every
// metric they name must be one a running service exposes, or an alert never fires and a
// panel stays empty without anyone noticing (a renamed metric, a typo).

const rulesFile = join(packageRoot, 'examples', 'deploy', 'diagnostic-service-alerts.yml')
const dashboardFile = join(packageRoot, 'examples', 'grafana', 'diagnostic-service.json')
const rulesTests = join(packageRoot, 'test', 'fixtures', 'prometheus', 'diagnostic-service-alerts.test.yml')

/** Prometheus' own series for every target it scrapes, not the service's. */
const scrapeSeries = new Set(['up'])
const keywords = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
])
const keywordsWithNames = /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g

/**
 * The metric names of a PromQL expression: what is left once strings, label matchers,
 * ranges, grouping label lists, function calls' names, keywords and numbers are taken out.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(keywordsWithNames, ' ')
  const names = [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?!\s*\()/g)]
    .filter((match) => !/[A-Za-z0-9_:]/.test(bare[match.index + match[0].length] ?? ''))
    .map((match) => match[0])
  return names.filter((name) => !keywords.has(name) && !/^(e\d*|Inf|NaN)$/i.test(name))
}

/** Each `expr:` of the rules file, on one line or as a `|` block; there must be one per rule. */
function ruleExpressions(yaml: string): string[] {
  const exprs = [...yaml.matchAll(/^(\s*)expr: (\|\n((?:\1\s+.*\n)+)|.*)$/gm)].map((m) => (m[3] ?? m[2] ?? '').trim())
  const rules = yaml.match(/^\s*- (alert|record):/gm) ?? []
  if (exprs.length !== rules.length) throw new Error(`${rules.length} rules but ${exprs.length} expressions read`)
  return exprs
}

/** Every PromQL expression of the dashboard: its panels' targets and its variables' queries. */
function dashboardExpressions(dashboard: unknown): string[] {
  const found: string[] = []
  const visit = (node: unknown) => {
    if (Array.isArray(node)) for (const item of node) visit(item)
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'expr' || key === 'query') && typeof value === 'string') found.push(value)
        else visit(value)
      }
    }
  }
  visit(dashboard)
  // label_values(metric{...}, label): the metric is what the variable needs.
  return found.map((query) => query.replace(/^label_values\((.*),\s*\w+\)$/, '$1')).filter((q) => q !== 'prometheus')
}

/** The sample names a scrape can carry: each family's name, and a histogram's or summary's series. */
function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>()
  for (const [, name = '', type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name)
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix)
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix)
  }
  return names
}

describe('the monitoring examples/ ship for the service itself', () => {
  let t: TestService
  beforeAll(async () => {
    t = await build()
  })
  afterAll(() => t.close())

  it('reads metric names out of PromQL as Prometheus would', () => {
    expect(
      metricNames(
        'sum without (branch) (rate(diagnostic_diagnoses_total{branch="TD-07"}[1h])) / ignoring (status) diagnostic_queue_capacity > 0.8 and on(job) up == 0',
      ),
    ).toEqual(['diagnostic_diagnoses_total', 'diagnostic_queue_capacity', 'up'])
    expect(metricNames('histogram_quantile(0.95, sum by (le) (rate(x_bucket[5m]))) > 5e9 * 14 * 86400')).toEqual([
      'x_bucket',
    ])
  })

  it('names in its alerting rules and its dashboard only metrics a running service exposes', async () => {
    const exposed = exposedNames((await t.call('GET', '/metrics')).text)
    const rules = ruleExpressions(readFileSync(rulesFile, 'utf8'))
    const panels = dashboardExpressions(JSON.parse(readFileSync(dashboardFile, 'utf8')))
    expect(rules.length).toBeGreaterThan(10)
    expect(panels.length).toBeGreaterThan(20)
    const named = new Set([...rules, ...panels].flatMap(metricNames))
    // The new families are watched, not only exposed.
    for (const name of [
      'diagnostic_diagnoses_total',
      'diagnostic_evidence_source_failures_total',
      'diagnostic_http_request_duration_seconds_bucket',
      'diagnostic_mails_retrying',
      'diagnostic_tls_certificate_expires_in_seconds',
      'diagnostic_api_token_expires_in_seconds',
      'diagnostic_webhooks_refused_total',
    ]) {
      expect(named).toContain(name)
    }
    const unknown = [...named].filter((name) => !exposed.has(name) && !scrapeSeries.has(name))
    expect(unknown).toEqual([])
  })

  it('has alerting rules that fire on synthetic series when they should, and not before (promtool test rules)', () => {
    const promtool = realTool('promtool', 'prometheus')
    const result = spawnSync(promtool, ['test', 'rules', rulesTests], { encoding: 'utf8' })
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).toContain('SUCCESS')
  })
})
