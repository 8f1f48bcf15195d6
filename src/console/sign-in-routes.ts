import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type ConsoleSessionService, type SessionBounds, signInMessages } from './console-sessions.js'
import type { PageRenderer } from './page-reply.js'
import { hostOnly, sessionCookie, sessionCookieOptions } from './session-cookies.js'
import { consolePath } from './session-gate.js'

// Sign-in and sign-out. A token is posted (never in a URL, never logged, never shown back),
// checked as the API checks it, and exchanged for a session; both forms carry a CSRF token.

const formBodyLimit = 8 * 1024

interface SignInQuery {
  next?: string
  ended?: '1'
  'signed-out'?: '1'
}

interface SignInBody {
  token: string
  next?: string
}

export interface SignInDeps {
  sessions: ConsoleSessionService
  bounds: SessionBounds
  render: PageRenderer
}

const landing = (next: string | undefined) => (next && consolePath.test(next) ? next : '/console/incidents')

export async function signInRoutes(app: FastifyInstance, deps: SignInDeps) {
  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    fields: { next: string; notice: string | null; refusal: string | null },
  ) =>
    deps.render(
      request,
      reply,
      'sign-in',
      {
        ...fields,
        csrf: reply.generateCsrf(),
        sessionHours: deps.bounds.sessionMs / 3_600_000,
        idleMinutes: deps.bounds.idleMs / 60_000,
      },
      { title: 'Sign in' },
    )

  app.get('/', { config: { signedOut: true } }, async (_request, reply) => reply.redirect('/console/incidents', 303))

  app.get<{ Querystring: SignInQuery }>('/sign-in', {
    config: { signedOut: true },
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { next: { type: 'string', maxLength: 2048 }, ended: { const: '1' }, 'signed-out': { const: '1' } },
      },
    },
    handler: async (request, reply) => {
      const { next, ended } = request.query
      if (request.consoleSession) return reply.redirect(landing(next), 303)
      const notice = request.query['signed-out']
        ? 'You are signed out.'
        : ended
          ? 'Your session has ended. Sign in again.'
          : null
      return page(request, reply, { next: next && consolePath.test(next) ? next : '', notice, refusal: null })
    },
  })

  app.post<{ Body: SignInBody }>('/sign-in', {
    config: { signedOut: true },
    bodyLimit: formBodyLimit,
    preValidation: app.csrfProtection,
    schema: {
      body: {
        type: 'object',
        required: ['token'],
        properties: {
          _csrf: { type: 'string' },
          token: { type: 'string', maxLength: 1024 },
          next: { type: 'string', maxLength: 2048 },
        },
      },
    },
    handler: async (request, reply) => {
      const next = request.body.next && consolePath.test(request.body.next) ? request.body.next : ''
      const outcome = await deps.sessions.signIn(request.body.token.trim())
      if ('refused' in outcome) {
        // Who tried is unknown; an expired token is an operator's to rotate.
        request.log[outcome.refused === 'expired' ? 'warn' : 'info'](
          { refused: outcome.refused },
          'console sign-in refused',
        )
        reply.code(outcome.refused === 'no_read_scope' ? 403 : 401)
        return page(request, reply, { next, notice: null, refusal: signInMessages[outcome.refused] })
      }
      const { id, session } = outcome
      request.log.info({ principal: session.principal }, 'console session started')
      reply.setCookie(sessionCookie, id, sessionCookieOptions(deps.bounds.sessionMs))
      return reply.redirect(landing(next), 303)
    },
  })

  app.post('/sign-out', {
    bodyLimit: formBodyLimit,
    preValidation: app.csrfProtection,
    schema: { body: { type: 'object', properties: { _csrf: { type: 'string' } } } },
    handler: async (request, reply) => {
      const session = request.consoleSession
      if (session) {
        await deps.sessions.signOut(session)
        request.log.info({ principal: session.principal }, 'console session ended')
      }
      reply.clearCookie(sessionCookie, hostOnly)
      return reply.redirect('/console/sign-in?signed-out=1', 303)
    },
  })
}
