import { request as httpsRequest } from 'node:https'
import type { SecureVersion } from 'node:tls'

export interface HttpResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: () => any
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean
  ca: string | Buffer
  maxVersion?: SecureVersion
  timeoutMs?: number
}

/** A real HTTPS request that verifies the server against `ca` (no keep-alive). */
export function request(url: string, options: RequestOptions): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.body !== undefined && !options.chunked) {
      headers['content-length'] = String(Buffer.byteLength(options.body))
    }
    const req = httpsRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers,
        ca: options.ca,
        agent: false,
        ...(options.maxVersion ? { maxVersion: options.maxVersion } : {}),
        timeout: options.timeoutMs ?? 15_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) })
        })
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    if (options.body === undefined) {
      req.end()
    } else if (options.chunked) {
      const body = Buffer.from(options.body)
      // Several chunks, so the server must count bytes as they arrive.
      const size = 16 * 1024
      for (let offset = 0; offset < body.length; offset += size) req.write(body.subarray(offset, offset + size))
      req.end()
    } else {
      req.end(options.body)
    }
  })
}
