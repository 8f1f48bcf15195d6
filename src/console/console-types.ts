import 'fastify'
import type {} from '@fastify/csrf-protection'
import type { SignedIn } from './console-sessions.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A console page open without a session: the sign-in form, the stylesheet (every other console route needs one). */
    signedOut?: boolean
    /** The console's stylesheet and icon: no session, no storage, served even while not ready. */
    consoleStatic?: boolean
  }
  interface FastifyRequest {
    /** The console session of this request, once the session gate found it. */
    consoleSession: SignedIn | null
  }
}
