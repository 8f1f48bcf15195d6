import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:https'
import { resolve } from 'node:path'

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

/**
 * Where the CLI connects: flags first, then DIAG_CLI_URL / DIAG_CLI_TOKEN / DIAG_CLI_CA,
 * then the embedded defaults of a local `npm start` (./data/api-token, ./data/tls/ca.pem).
 */
export function clientOptions(
  flags: { url?: string | undefined; token?: string | undefined; ca?: string | undefined },
  env: Record<string, string | undefined>,
  cwd = process.cwd(),
): ClientOptions {
  const url = flags.url ?? env.DIAG_CLI_URL ?? 'https://localhost:8443'
  const tokenFile = resolve(cwd, 'data', 'api-token')
  const token =
    flags.token ??
    env.DIAG_CLI_TOKEN ??
    env.DIAG_API_TOKEN ??
    (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined)
  if (!token) throw new Error('no API token: pass --token, or set DIAG_CLI_TOKEN')
  const caFile = flags.ca ?? env.DIAG_CLI_CA ?? resolve(cwd, 'data', 'tls', 'ca.pem')
  const ca = existsSync(caFile) ? readFileSync(caFile) : undefined
  if (flags.ca && !ca) throw new Error(`CA file not found: ${flags.ca}`)
  return { url: url.replace(/\/$/, ''), token, ...(ca ? { ca } : {}) }
}

/** One HTTPS call to the service with TLS 1.3 and the bearer token. */
export function call(options: ClientOptions, method: string, path: string, body?: unknown): Promise<ClientResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolvePromise, reject) => {
    const req = request(
      `${options.url}${path}`,
      {
        method,
        minVersion: 'TLSv1.3',
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: 30_000,
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
