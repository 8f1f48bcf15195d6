import { request } from 'node:https'

export interface ClientOptions {
  url: string
  token: string
  ca?: Buffer
}

export interface ClientResponse {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: the JSON bodies of our own API, read field by field
  body: any
}

/** One HTTPS call to the service with TLS 1.3 and the bearer token; no answer within `timeoutMs` fails it. */
export function call(
  options: ClientOptions,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<ClientResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolvePromise, reject) => {
    const req = request(
      `${options.url}${path}`,
      {
        method,
        minVersion: 'TLSv1.3',
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let parsed: unknown = text
          try {
            parsed = JSON.parse(text)
          } catch {}
          resolvePromise({ status: res.statusCode ?? 0, body: parsed })
        })
      },
    )
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end(payload)
  })
}

/** An error body's message with its details (docs/api.md: `{error, message, details?}`). */
export function errorMessage(body: ClientResponse['body']): string {
  const details = Array.isArray(body?.details)
    ? body.details.map((d: { path: string; message: string }) => ` ${d.path} ${d.message};`).join('')
    : ''
  return `${body?.message ?? body}${details}`
}

/** An answer that is not a success, as one line: the status, the error code, the message. */
export const apiFailure = (answer: ClientResponse) =>
  `FAILED ${answer.status} ${answer.body?.error ?? ''}: ${errorMessage(answer.body)}`
