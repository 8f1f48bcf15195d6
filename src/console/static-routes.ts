import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { packageRoot } from '../paths.js'

// The console's one stylesheet and its icon, from the package, read once at start: nothing
// is fetched from elsewhere at run time (no CDN), and the CSP allows styles and images from
// this origin only.

export const staticDir = join(packageRoot, 'src', 'console', 'static')

const files = {
  'console.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
} as const

export async function staticRoutes(app: FastifyInstance) {
  for (const [name, type] of Object.entries(files)) {
    const body = readFileSync(join(staticDir, name))
    app.get(`/static/${name}`, { config: { signedOut: true, consoleStatic: true } }, async (_request, reply) =>
      reply.type(type).header('cache-control', 'public, max-age=3600').send(body),
    )
  }
}
