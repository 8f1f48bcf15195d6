import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config/load.js'
import { type Service, startService } from '../../src/service.js'
import { type HttpResponse, type RequestOptions, request } from './https-client.js'

export const testToken = 'test-token-0123456789abcdef'

export interface TestService {
  service: Service
  dataDir: string
  ca: Buffer
  /** A request to the service, authenticated with `testToken` unless headers say otherwise. */
  call(
    method: string,
    path: string,
    options?: Omit<RequestOptions, 'ca' | 'method'> & { json?: unknown },
  ): Promise<HttpResponse>
  count(table: 'events' | 'incidents' | 'queue_items'): number
  close(): Promise<void>
}

/**
 * Starts the whole service, as `npm start` does, on a temporary data directory (a real
 * SQLite file and generated TLS material) behind a real HTTPS listener on loopback.
 */
export async function build(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'diag-test-'))
  const config = loadConfig({
    DIAG_DATA_DIR: dataDir,
    DIAG_HOST: '127.0.0.1',
    DIAG_PORT: '0',
    DIAG_API_TOKEN: testToken,
    DIAG_LOG_LEVEL: 'silent',
    // In-process tests run the TypeScript sources, which a worker thread cannot load; the
    // service processes (test/e2e, from dist/) use analysis threads.
    DIAG_ANALYSIS_THREADS: '0',
    ...env,
  })
  const service = await startService(config)
  const ca = readFileSync(service.generatedCaFile ?? join(dataDir, 'tls', 'ca.pem'))
  let closed = false
  return {
    service,
    dataDir,
    ca,
    call(method, path, options = {}) {
      const { json, headers, ...rest } = options
      const body = json === undefined ? rest.body : JSON.stringify(json)
      return request(`${service.url}${path}`, {
        ...rest,
        method,
        ca,
        headers: {
          authorization: `Bearer ${testToken}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body }),
      })
    },
    count(table) {
      return Number(service.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get())
    },
    async close() {
      if (closed) return
      closed = true
      await service.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
