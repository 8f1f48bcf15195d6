import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

/** The metrics and health endpoints of the demo's sample instances, served on loopback. */
export interface SampleEndpoints {
  /** `http://127.0.0.1:<port>`; an instance's endpoints are `<base>/<instance>/metrics` and `/health`. */
  base: string
  /** The instances that have endpoints (a folder in `dir`). */
  instances: string[]
  close(): Promise<void>
}

interface Answer {
  status: number
  type: string
  body: string
}

/**
 * Serves what `dir` (examples/endpoints/) says each instance answers: `<instance>/metrics`
 * as a Prometheus text exposition, `<instance>/health-response.json` as a status and a
 * JSON body. On a port of its own (0: any free one), so the demo runs beside anything.
 */
export async function serveSampleEndpoints(dir: string, instances: readonly string[]): Promise<SampleEndpoints> {
  const answers = new Map<string, Answer>()
  const served = instances.filter((instance) => existsSync(join(dir, instance)))
  for (const instance of served) {
    answers.set(`/${instance}/metrics`, {
      status: 200,
      type: 'text/plain; version=0.0.4; charset=utf-8',
      body: readFileSync(join(dir, instance, 'metrics'), 'utf8'),
    })
    const health = JSON.parse(readFileSync(join(dir, instance, 'health-response.json'), 'utf8'))
    answers.set(`/${instance}/health`, {
      status: health.status,
      type: 'application/json',
      body: JSON.stringify(health.body),
    })
  }
  const server = createServer((req, res) => {
    const answer = answers.get(req.url ?? '') ?? { status: 404, type: 'text/plain', body: 'not found\n' }
    res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    base: `http://127.0.0.1:${port}`,
    instances: served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
