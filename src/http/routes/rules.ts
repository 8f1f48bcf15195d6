import type { FastifyInstance } from 'fastify'
import { errors } from '../../errors.js'
import { takePage } from '../../page-bounds.js'
import { rulepackSchema } from '../../rules/rule-input.js'
import type { RulesService } from '../../rules/rules-service.js'
import { type CatalogueRule, type Category, type CustomRuleInput, categories, isBuiltin } from '../../rules/types.js'
import { errorResponses } from '../error-responses.js'
import { requireJson } from '../request-gates.js'

export const ruleBodyLimit = 64 * 1024

const nullableString = { type: ['string', 'null'] }
const ruleProperties = {
  id: { type: ['integer', 'string'] },
  ruleId: nullableString,
  branch: { type: 'string' },
  ruleName: { type: 'string' },
  category: { type: 'string' },
  classification: { type: 'string' },
  confidence: nullableString,
  recommendedActions: { type: 'array', items: { type: 'string' } },
}
const ruleDetail = {
  type: 'object',
  properties: {
    ...ruleProperties,
    targetSource: { type: 'string' },
    pattern: { type: 'string' },
    exceptionClass: { type: ['array', 'null'], items: { type: 'string' } },
    exceptionMeaning: { type: ['array', 'null'], items: { type: 'string' } },
    assessment: { type: 'string' },
    priority: { type: ['integer', 'null'] },
    createdBy: { type: 'string' },
    createdAt: { type: 'string' },
  },
}
const ruleList = {
  type: 'object',
  properties: {
    rules: { type: 'array', items: { type: 'object', properties: ruleProperties } },
    /** Rules in the catalogue (with the filter), on all pages. */
    total: { type: 'integer' },
    category: nullableString,
    /** Pass it as `cursor` for the next page; null on the last page. */
    nextCursor: nullableString,
  },
}

interface ListQuery {
  category?: Category
  limit?: string
  cursor?: string
}

// The catalogue is append-only and listed built-ins first, then custom rules by id: a
// position in it never moves, so the cursor is a position.
const encodePosition = (position: number) => Buffer.from(`rules:${position}`).toString('base64url')
function decodePosition(cursor: string): number {
  const match = /^rules:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!match) {
    throw errors.invalidQueryParameter('The cursor is not valid.', [
      { path: '/cursor', message: 'is not a cursor this service issued' },
    ])
  }
  return Number(match[1])
}

/** List items carry the fields of the spec's list; built-ins show no pattern or audit fields. */
function toItem(rule: CatalogueRule) {
  const { id, ruleId, branch, ruleName, category, classification, confidence, recommendedActions } = rule
  return { id, ruleId, branch, ruleName, category, classification, confidence, recommendedActions }
}

function toDetail(rule: CatalogueRule) {
  if (!isBuiltin(rule)) return rule
  return { ...toItem(rule), assessment: rule.assessment }
}

export interface RuleRoutesDeps {
  rules: Pick<RulesService, 'list' | 'find' | 'register' | 'check'>
}

export async function ruleRoutes(app: FastifyInstance, deps: RuleRoutesDeps) {
  app.get<{ Querystring: ListQuery }>('/api/v1/rules', {
    config: { scope: 'read' },
    schema: {
      querystring: {
        type: 'object',
        properties: {
          category: { enum: [...categories] },
          // 1 to 200 rules a page, 100 by default (docs/api.md, "List the catalogue").
          limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$' },
          cursor: { type: 'string', maxLength: 100 },
        },
      },
      response: { 200: ruleList, ...errorResponses(400, 401, 403, 429, 503) },
    },
    handler: async (request) => {
      const { category = null, limit, cursor } = request.query
      const all = deps.rules.list(category ?? undefined)
      const from = cursor ? decodePosition(cursor) : 0
      // A rule's text is bounded by its schema, but a page of them could still add up to
      // megabytes with long actions: the byte budget bounds it too.
      const page = takePage(all.slice(from, from + 200).map(toItem), limit ? Number(limit) : 100, (rule) =>
        Buffer.byteLength(JSON.stringify(rule)),
      )
      const next = page.more || from + page.items.length < all.length ? encodePosition(from + page.items.length) : null
      return { rules: page.items, total: all.length, category, nextCursor: next }
    },
  })

  app.get<{ Params: { idOrBranch: string } }>('/api/v1/rules/:idOrBranch', {
    config: { scope: 'read' },
    schema: { response: { 200: ruleDetail, ...errorResponses(401, 403, 404, 429, 503) } },
    handler: async (request) => {
      const rule = deps.rules.find(request.params.idOrBranch)
      if (!rule) throw errors.notFound('No rule has this id or branch.')
      return toDetail(rule)
    },
  })

  app.post<{ Body: CustomRuleInput; Querystring: { dryRun?: 'true' | 'false' } }>('/api/v1/rules', {
    bodyLimit: ruleBodyLimit,
    config: { invalidBodyCode: 'invalid_rule_schema', scope: 'rules:write' },
    preParsing: requireJson,
    schema: {
      // dryRun=true: every check of a registration (schema, conflicts, limit, pattern
      // safety), nothing stored; 200 with the rule as it would be stored.
      querystring: {
        type: 'object',
        properties: { dryRun: { enum: ['true', 'false'] } },
        additionalProperties: false,
      },
      body: rulepackSchema,
      response: {
        200: { type: 'object', properties: { status: { const: 'valid' }, rule: ruleDetail } },
        201: ruleDetail,
        ...errorResponses(400, 401, 403, 409, 413, 415, 429, 503),
      },
    },
    handler: async (request, reply) => {
      if (request.query.dryRun === 'true') {
        const { principal: _, ...rule } = await deps.rules.check(request.body, request.principal)
        return reply.code(200).send({ status: 'valid', rule })
      }
      const rule = await deps.rules.register(request.body, request.principal)
      // By which token (its name, never the token itself).
      const { id: ruleId, branch, ruleName, category } = rule
      request.log.info({ ruleId, branch, ruleName, category, tokenName: request.principal }, 'rule registered')
      return reply.code(201).send(rule)
    },
  })
}

/**
 * D6: rules are append-only. PUT, PATCH and DELETE (and POST on one rule) answer 405 with
 * an Allow header before authentication, and before any body is read.
 */
export async function appendOnlyGuard(app: FastifyInstance) {
  const refuse = (allow: string) => async () => {
    throw errors.methodNotAllowed(allow)
  }
  const config = { public: true }
  // Not operations of the API: left out of its OpenAPI description.
  const schema = { hide: true }
  app.route({
    method: ['PUT', 'PATCH', 'DELETE'],
    url: '/api/v1/rules',
    config,
    schema,
    onRequest: refuse('GET, POST'),
    handler: async () => undefined,
  })
  // The replay changes nothing and is no rule: only POST.
  app.route({
    method: ['PUT', 'PATCH', 'DELETE'],
    url: '/api/v1/rules/replay',
    config,
    schema,
    onRequest: refuse('POST'),
    handler: async () => undefined,
  })
  for (const url of ['/api/v1/rules/:idOrBranch', '/api/v1/rules/*']) {
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url,
      config,
      schema,
      onRequest: refuse('GET'),
      handler: async () => undefined,
    })
  }
}
