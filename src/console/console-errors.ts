import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type AppError, errors } from '../errors.js'
import { toAppError } from '../http/error-handler.js'
import type { ConsoleViews } from './views.js'

// Errors of console requests as pages, with the status and the message the API would give
// (src/http/error-handler.ts), and the CSRF plugin's refusals in words. A 5xx says nothing
// of its cause; the log has it.

const headings: Record<number, string> = {
  400: 'This request is not valid',
  403: 'Refused',
  404: 'Not found',
  429: 'Too many requests',
  503: 'The service is not ready',
}

const csrfCodes = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN'])

function consoleError(error: FastifyError, request: FastifyRequest): AppError {
  return csrfCodes.has(error.code) ? errors.csrfRefused() : toAppError(error, request)
}

export function registerConsoleErrors(
  app: FastifyInstance,
  views: ConsoleViews,
  rejected: (reason: string) => void,
): void {
  const render = (request: FastifyRequest, reply: FastifyReply, appError: AppError) => {
    const signedIn = request.consoleSession
    reply.headers(appError.headers)
    return reply
      .code(appError.statusCode)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        views.page(
          'error',
          {
            heading: headings[appError.statusCode] ?? 'Something went wrong',
            message: appError.message,
            details: appError.details ?? [],
            back: signedIn ? '/console/incidents' : '/console/sign-in',
            backLabel: signedIn ? 'Back to the incidents' : 'To the sign-in page',
          },
          // No sign-out form here: an error page is not where a session ends.
          { title: headings[appError.statusCode] ?? 'Error', signedIn: null },
        ),
      )
  }
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = consoleError(error, request)
    if (appError.statusCode !== 500) rejected(appError.code)
    else request.log.error({ err: error }, 'console request failed')
    if (appError.code === 'storage_unavailable') request.log.warn({ err: error }, 'storage unavailable')
    return render(request, reply, appError)
  })
  app.setNotFoundHandler((request, reply) => {
    const appError = errors.notFound('No such page in the console.')
    rejected(appError.code)
    return render(request, reply, appError)
  })
}
