import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type AppError, errors } from '../errors.js'
import { toAppError } from '../http/error-handler.js'
import { lastPattern, replayBodyLimit, replayCandidates } from '../http/routes/rules-replay.js'
import type { ReplayService } from '../rules/replay/replay-service.js'
import { replayBounds } from '../rules/replay/replay-types.js'
import type { RulesService } from '../rules/rules-service.js'
import { type CustomRule, type CustomRuleInput, isBuiltin } from '../rules/types.js'
import type { PageRenderer } from './page-reply.js'
import { replayView } from './replay-view.js'
import { rulesPageSize } from './rules-routes.js'

// Replay before registering, in the console (docs/design.md, "The web console"): a form for
// a candidate rule or rulepack and N, the diff of outcomes the API's replay gives, and from
// it one click to register the candidates through the API's own service. The candidates
// are read as the API reads its body (replayCandidates), and refused in the API's words.

/** A form holds the JSON URL-encoded: up to three bytes for each of the API's. */
const formBodyLimit = 3 * replayBodyLimit + 16 * 1024

// The same bound as the API's `?last=`: 1 to 5,000.
const lastBound = new RegExp(lastPattern)

/** Refusals the page shows beside the form; anything else is the console's error page. */
const shownCodes = new Set(['replay_busy', 'pattern_check_unavailable'])

interface ReplayForm {
  candidates: string
  last?: string
}

export interface ReplayPageDeps {
  replay: Pick<ReplayService, 'replay'>
  rules: Pick<RulesService, 'catalogue' | 'register'>
  render: PageRenderer
  /** Counts each refusal by its code (diagnostic_requests_rejected_total), as the error pages do. */
  rejected: (reason: string) => void
}

const formSchema = (withLast: boolean) => ({
  type: 'object',
  required: ['candidates'],
  properties: {
    _csrf: { type: 'string' },
    candidates: { type: 'string' },
    ...(withLast ? { last: { type: 'string', maxLength: 16 } } : {}),
  },
})

/** The candidates of a form, and whether they are a pack (an array): the API's body checks, from the text pasted. */
function candidatesOf(text: string): { rules: CustomRuleInput[]; pack: boolean } {
  if (Buffer.byteLength(text) > replayBodyLimit) throw errors.payloadTooLarge(replayBodyLimit)
  if (text.trim() === '') throw errors.invalidRuleSchema('The request body is empty.')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw errors.invalidRuleSchema('The request body is not valid JSON.', [
      { path: '/', message: (error as Error).message },
    ])
  }
  return { rules: replayCandidates(body), pack: Array.isArray(body) }
}

function lastOf(text: string | undefined): number {
  if (text === undefined || text === '') return replayBounds.defaultLast
  if (!lastBound.test(text)) {
    throw errors.invalidQueryParameter('A query parameter is invalid.', [
      { path: '/last', message: `must be a whole number from 1 to ${replayBounds.maxLast}` },
    ])
  }
  return Number(text)
}

/** Where the catalogue page shows a rule: its page and its row. */
function cataloguePlace(rules: Pick<RulesService, 'catalogue'>, rule: CustomRule): string {
  const index = rules.catalogue.rules.findIndex((known) => !isBuiltin(known) && known.id === rule.id)
  const from = Math.floor(Math.max(0, index) / rulesPageSize) * rulesPageSize
  return `/console/rules?from=${from}#rule-${rule.id}`
}

export async function replayRoutes(app: FastifyInstance, deps: ReplayPageDeps) {
  /** A refusal the page shows, or the error rethrown for the console's error page. */
  const refusalOf = (error: unknown, request: FastifyRequest): AppError => {
    const appError = toAppError(error as FastifyError, request)
    if (appError.statusCode >= 500 && !shownCodes.has(appError.code)) throw error
    deps.rejected(appError.code)
    return appError
  }

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    fields: {
      candidates: string
      last: string
      refusal?: AppError | null
      result?: ReturnType<typeof replayView> | null
      registration?: { registered: Array<{ id: number; branch: string; ruleName: string; href: string }> } | null
    },
  ) => {
    const { refusal = null } = fields
    const session = request.consoleSession
    if (refusal) reply.code(refusal.statusCode).headers(refusal.headers)
    const model = {
      candidates: fields.candidates,
      last: fields.last,
      maxLast: replayBounds.maxLast,
      maxRules: replayBounds.maxRules,
      csrf: reply.generateCsrf(),
      refusal: refusal && {
        status: refusal.statusCode,
        code: refusal.code,
        message: refusal.message,
        details: refusal.details ?? [],
      },
      result: fields.result ?? null,
      registration: fields.registration ?? null,
      canRegister: session?.scopes.includes('rules:write') ?? false,
      scopes: session?.scopes.join(', ') ?? '',
    }
    return deps.render(request, reply, 'replay', model, { title: 'Replay a candidate rule', current: 'rules' })
  }

  app.get('/rules/replay', async (request, reply) =>
    page(request, reply, { candidates: '', last: String(replayBounds.defaultLast) }),
  )

  app.post<{ Body: ReplayForm }>('/rules/replay', {
    bodyLimit: formBodyLimit,
    preValidation: app.csrfProtection,
    schema: { body: formSchema(true) },
    handler: async (request, reply) => {
      const { candidates: text, last: lastText } = request.body
      const shown = { candidates: text, last: lastText || String(replayBounds.defaultLast) }
      try {
        const { rules, pack } = candidatesOf(text)
        const last = lastOf(lastText)
        const principal = request.consoleSession?.principal ?? ''
        const began = performance.now()
        const result = await deps.replay.replay(rules, last, principal)
        const durationMs = Math.round(performance.now() - began)
        const { evaluated, matches, unchanged } = result
        request.log.info(
          { principal, last, evaluated, matches, changed: result.changed.length, unchanged, durationMs },
          'console replay',
        )
        // The form keeps what was replayed, one rule or the pack, as JSON: what Register sends.
        const replayed = JSON.stringify(pack ? rules : rules[0], null, 2)
        return page(request, reply, { ...shown, candidates: replayed, result: replayView(result) })
      } catch (error) {
        return page(request, reply, { ...shown, refusal: refusalOf(error, request) })
      }
    },
  })

  // Registering needs rules:write, as POST /api/v1/rules does: a session without it is
  // refused, whatever the form carries. Each rule goes through the API's own service in turn.
  const mayRegister = (request: FastifyRequest) => request.consoleSession?.scopes.includes('rules:write') ?? false
  app.post<{ Body: ReplayForm }>('/rules/register', {
    bodyLimit: formBodyLimit,
    // After the session gate, before the body is read.
    onRequest: async (request) => {
      if (!mayRegister(request)) throw errors.forbidden('rules:write')
    },
    preValidation: app.csrfProtection,
    schema: { body: formSchema(false) },
    handler: async (request, reply) => {
      const session = request.consoleSession
      if (!session || !mayRegister(request)) throw errors.forbidden('rules:write')
      const text = request.body.candidates
      const shown = { candidates: text, last: String(replayBounds.defaultLast) }
      const registered: Array<{ id: number; branch: string; ruleName: string; href: string }> = []
      try {
        for (const input of candidatesOf(text).rules) {
          const rule = await deps.rules.register(input, session.principal)
          const { id: ruleId, branch, ruleName, category } = rule
          request.log.info(
            { ruleId, branch, ruleName, category, tokenName: session.principal, via: 'console' },
            'rule registered',
          )
          registered.push({ id: rule.id, branch, ruleName, href: cataloguePlace(deps.rules, rule) })
        }
      } catch (error) {
        return page(request, reply, { ...shown, registration: { registered }, refusal: refusalOf(error, request) })
      }
      reply.code(201)
      return page(request, reply, { candidates: '', last: shown.last, registration: { registered } })
    },
  })
}
