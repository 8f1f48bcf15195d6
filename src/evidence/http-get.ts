import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

export type GetFailure = 'timeout' | 'refused' | 'error' | 'too_large'

export type GetResult =
  | { ok: true; status: number; body: string; latencyMs: number }
  | { ok: false; failure: GetFailure; detail: string; latencyMs: number }

/**
 * One bounded GET (D17): a deadline for the whole exchange, a cap on the body, no
 * redirects followed, no keep-alive. A hung or failing source costs at most `timeoutMs`.
 */
export function boundedGet(url: string, options: { timeoutMs: number; maxBytes: number }): Promise<GetResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  return new Promise((resolve) => {
    let settled = false
    const done = (result: GetResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    const request = url.startsWith('https:') ? httpsRequest : httpRequest
    const req = request(
      url,
      { method: 'GET', agent: false, headers: { accept: 'text/plain, application/json;q=0.9, */*;q=0.1' } },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > options.maxBytes) {
            req.destroy()
            done({
              ok: false,
              failure: 'too_large',
              detail: `body over ${options.maxBytes} bytes`,
              latencyMs: elapsed(),
            })
            return
          }
          chunks.push(chunk)
        })
        res.on('end', () =>
          done({
            ok: true,
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            latencyMs: elapsed(),
          }),
        )
        res.on('error', (error) => done({ ok: false, failure: 'error', detail: error.message, latencyMs: elapsed() }))
      },
    )
    const timer = setTimeout(() => {
      req.destroy()
      done({ ok: false, failure: 'timeout', detail: `no answer within ${options.timeoutMs} ms`, latencyMs: elapsed() })
    }, options.timeoutMs)
    req.on('error', (error: NodeJS.ErrnoException) =>
      done({
        ok: false,
        failure: error.code === 'ECONNREFUSED' ? 'refused' : 'error',
        detail: error.code ?? error.message,
        latencyMs: elapsed(),
      }),
    )
    req.end()
  })
}
