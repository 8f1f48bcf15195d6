import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAjv } from '../../src/ajv.js'
import { packageRoot } from '../../src/paths.js'
import { patternWords } from '../../src/pattern-words.js'
import { build, type TestService } from '../helpers/build.js'
import { patternsOf } from '../helpers/schema-patterns.js'

describe('the OpenAPI description', () => {
  let t: TestService
  // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, read field by field
  let doc: any
  beforeAll(async () => {
    t = await build()
    const res = await t.call('GET', '/api/v1/openapi.json', { headers: { authorization: '' } })
    expect(res.status).toBe(200)
    doc = res.json()
  })
  afterAll(() => t.close())

  it('is a valid OpenAPI 3.1 document, without references left dangling', async () => {
    const result = await new Validator().validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(JSON.stringify(doc)).not.toContain('#/$defs/')
  })

  it('describes every operation of the API, and none of the 405 guards', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(operations.sort()).toEqual(
      [
        'GET /health',
        'GET /health/live',
        'GET /health/ready',
        'GET /metrics',
        'GET /api/v1/incidents',
        'GET /api/v1/incidents/{id}',
        'GET /api/v1/incidents/{id}/explanation',
        'GET /api/v1/incidents/{id}/timeline',
        'GET /api/v1/rules',
        'GET /api/v1/rules/{idOrBranch}',
        'POST /api/v1/alerts/alertmanager',
        'POST /api/v1/rules',
        'POST /api/v1/rules/replay',
      ].sort(),
    )
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('carries the schemas the routes validate with: the webhook example passes, a broken one does not', () => {
    const webhook = doc.paths['/api/v1/alerts/alertmanager'].post
    const validate = createAjv().compile(webhook.requestBody.content['application/json'].schema)
    expect(validate(JSON.parse(readFileSync(join(packageRoot, 'examples', 'webhook-firing.json'), 'utf8')))).toBe(true)
    expect(validate({ receiver: 'x', status: 'firing', groupKey: 'g', alerts: [{ status: 'firing' }] })).toBe(false)
    expect(webhook.responses['202'].content['application/json'].schema.properties.events).toBeDefined()
    expect(doc.paths['/api/v1/rules'].post.responses['409'].description).toContain('conflicts')
  })

  it('has words for every pattern a route validates with: an error body never shows a regular expression', () => {
    const patterns = patternsOf(doc.paths)
    expect(patterns).toContain('^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$')
    expect(patterns.filter((pattern) => !(pattern in patternWords))).toEqual([])
  })
})
