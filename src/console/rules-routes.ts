import type { FastifyInstance } from 'fastify'
import type { RulesService } from '../rules/rules-service.js'
import { seedPrincipal } from '../rules/seed.js'
import { type CatalogueRule, isBuiltin } from '../rules/types.js'
import type { ConsoleReads } from '../store/console-port.js'
import type { PageRenderer } from './page-reply.js'
import { shownTime } from './time-words.js'

// The rules page: the catalogue as the engines hold it, built-ins first, then custom rules
// in registration order (an append-only list: a position never moves, so it is the page's
// cursor), each with who registered it and when, its JSON, and the incidents it decided.

/** Rules a catalogue page shows. */
export const rulesPageSize = 50
const dayMs = 86_400_000

function registered(rule: CatalogueRule) {
  if (isBuiltin(rule))
    return { origin: 'built-in', by: `shipped (${rule.family} rules, version ${rule.version})`, at: null }
  const seed = rule.createdBy === seedPrincipal
  return {
    origin: seed ? 'seed' : 'custom',
    by: seed ? 'the service at its first start (the seed rulepack)' : `token ${rule.createdBy}`,
    at: shownTime(rule.createdAt),
  }
}

export interface RulesPageDeps {
  rules: Pick<RulesService, 'catalogue'>
  console: ConsoleReads
  render: PageRenderer
  now?: () => number
}

export async function rulesRoutes(app: FastifyInstance, deps: RulesPageDeps) {
  app.get<{ Querystring: { from?: string } }>('/rules', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { from: { type: 'string', pattern: '^\\d{1,9}$' } },
      },
    },
    handler: async (request, reply) => {
      const all = deps.rules.catalogue.rules
      const from = Math.min(Number(request.query.from ?? '0'), all.length)
      const now = (deps.now ?? Date.now)()
      const decided = new Map(
        (await deps.console.ruleDecisions(now - 7 * dayMs, now - 30 * dayMs)).map((d) => [d.branch, d]),
      )
      const rows = all.slice(from, from + rulesPageSize).map((rule) => ({
        id: String(rule.id),
        branch: rule.branch,
        ruleName: rule.ruleName,
        category: rule.category,
        classification: rule.classification,
        confidence: rule.confidence ?? null,
        registered: registered(rule),
        week: decided.get(rule.branch)?.week ?? 0,
        month: decided.get(rule.branch)?.month ?? 0,
        json: JSON.stringify(rule, null, 2),
      }))
      const model = {
        total: all.length,
        builtins: deps.rules.catalogue.builtins.length,
        custom: deps.rules.catalogue.custom.length,
        first: from + 1,
        last: from + rows.length,
        rows,
        previous: from > 0 ? `/console/rules?from=${Math.max(0, from - rulesPageSize)}` : null,
        next: from + rulesPageSize < all.length ? `/console/rules?from=${from + rulesPageSize}` : null,
      }
      return deps.render(request, reply, 'rules', model, { title: 'Rules', current: 'rules' })
    },
  })
}
