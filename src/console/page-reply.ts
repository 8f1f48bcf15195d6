import type { FastifyReply, FastifyRequest } from 'fastify'
import './console-types.js'
import type { ConsoleViews, Layout } from './views.js'

/** Answers a request with a whole page; the layout shows who is signed in, with the sign-out form. */
export type PageRenderer = (
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  model: object,
  layout: Omit<Layout, 'signedIn'>,
) => FastifyReply

export function pageRenderer(views: ConsoleViews): PageRenderer {
  return (request, reply, name, model, layout) => {
    const session = request.consoleSession
    // The sign-out form is a state change: it carries a CSRF token, as every form does.
    const signedIn = session ? { principal: session.principal, csrf: reply.generateCsrf() } : null
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(views.page(name, model, { ...layout, signedIn }))
  }
}
