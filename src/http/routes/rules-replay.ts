import type { FastifyInstance } from 'fastify'
import { createAjv, requestValidation } from '../../ajv.js'
import { type ErrorDetail, errors } from '../../errors.js'
import type { ReplayService } from '../../rules/replay/replay-service.js'
import { replayBounds } from '../../rules/replay/replay-types.js'
import { rulepackSchema } from '../../rules/rule-input.js'
import type { CustomRuleInput } from '../../rules/types.js'
import { toDetails } from '../../schema-words.js'
import { errorResponses } from '../error-responses.js'
import { requireJson } from '../request-gates.js'

/** N, the diagnosed events to replay on: 1 to 5,000 (replayBounds), as text; the console's form bounds it alike. */
export const lastPattern = '^(?:[1-9][0-9]{0,2}|[1-4][0-9]{3}|5000)$'

/** 50 rules of at most 64 KiB each would be more: a rulepack to replay is a few rules. */
export const replayBodyLimit = 1024 * 1024

// The schema POST /api/v1/rules validates each rule with, compiled as the app compiles it (app.ts).
const validateRule = createAjv(requestValidation).compile<CustomRuleInput>(rulepackSchema)

/**
 * The candidates of a replay's body (one rule or an array), each schema-valid, or the very
 * error registration would give it; a rulepack's rule n has its paths under `/n`. The
 * console's replay form reads its body with it too.
 */
export function replayCandidates(body: unknown): CustomRuleInput[] {
  const rules = Array.isArray(body) ? body : [body]
  if (rules.length < 1 || rules.length > replayBounds.maxRules) {
    throw errors.invalidRuleSchema('The request body does not match the schema.', [
      { path: '/', message: `must hold 1 to ${replayBounds.maxRules} rules` },
    ])
  }
  for (const [i, rule] of rules.entries()) {
    if (validateRule(rule)) continue
    const prefix = Array.isArray(body) ? `/${i}` : ''
    const details: ErrorDetail[] = toDetails(validateRule.errors).map((d) => ({
      ...d,
      path: prefix && d.path === '/' ? prefix : `${prefix}${d.path}`,
    }))
    throw errors.invalidRuleSchema('The request body does not match the schema.', details)
  }
  return rules as CustomRuleInput[]
}

const free = { type: 'object', additionalProperties: true }
const count = { type: 'integer' }
const replayResult = {
  type: 'object',
  required: ['candidates', 'requested', 'evaluated', 'changed', 'added', 'unchanged', 'matches', 'cost'],
  properties: {
    candidates: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: count, branch: { type: 'string' }, ruleName: { type: 'string' }, matches: count },
      },
    },
    requested: count,
    evaluated: count,
    changed: { type: 'array', items: free },
    added: { type: 'array', items: free },
    unchanged: count,
    matches: count,
    truncatedBundles: count,
    unreadable: count,
    omitted: { type: 'object', properties: { changed: count, added: count } },
    cost: free,
    durationMs: count,
  },
}

export interface ReplayRoutesDeps {
  replay: Pick<ReplayService, 'replay'>
}

/**
 * POST /api/v1/rules/replay (docs/api.md, "Replay a candidate rule"): a rule or a rulepack,
 * checked exactly as registration checks it, evaluated on the stored evidence of the last N
 * diagnosed events; a diff of outcomes, nothing stored. `read` scope: it changes nothing.
 */
export async function replayRoutes(app: FastifyInstance, deps: ReplayRoutesDeps) {
  app.post<{ Body: unknown; Querystring: { last?: string } }>('/api/v1/rules/replay', {
    bodyLimit: replayBodyLimit,
    config: { invalidBodyCode: 'invalid_rule_schema', scope: 'read' },
    preParsing: requireJson,
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        // 1 to 5,000 events, 1,000 by default.
        properties: { last: { type: 'string', pattern: lastPattern } },
      },
      // One rule of schemas/rulepack-v1.schema.json, or an array of them; each is validated as POST /api/v1/rules validates.
      body: { anyOf: [{ type: 'object' }, { type: 'array' }] },
      response: { 200: replayResult, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 503) },
    },
    handler: async (request) => {
      const rules = replayCandidates(request.body)
      const last = request.query.last ? Number(request.query.last) : replayBounds.defaultLast
      const began = performance.now()
      const result = await deps.replay.replay(rules, last, request.principal)
      const durationMs = Math.round(performance.now() - began)
      const { evaluated, matches, unchanged } = result
      request.log.info({ last, evaluated, matches, changed: result.changed.length, unchanged, durationMs }, 'replay')
      return { ...result, durationMs }
    },
  })
}
