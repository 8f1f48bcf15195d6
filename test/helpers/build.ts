import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { loadConfig } from '../../src/config/load.js'
import type { Logger } from '../../src/logging.js'
import { type Service, startService } from '../../src/service.js'
import type { DatabaseOptions } from '../../src/store/sqlite/database.js'
import { type HttpResponse, type RequestOptions, request } from './https-client.js'
import { postgresForFile } from './postgres.js'

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
  /** The rows of a table, on either storage. */
  count(table: 'events' | 'incidents' | 'queue_items' | 'rules' | 'outbox'): Promise<number>
  /**
   * Rows of a query on the service's storage, whichever it is (`?` placeholders): what a
   * test reads to check the service, on SQLite and on PostgreSQL alike. A statement that
   * returns no rows (an UPDATE that ages a record) gives none.
   */
  rows(sql: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>>
  close(): Promise<void>
}

/**
 * `DIAG_TEST_STORAGE=postgres` runs a suite on PostgreSQL instead of SQLite (npm test does,
 * for the suites that read the storage through `rows`): one server per test file, started
 * on first use, a new database per service.
 */
const onPostgres = process.env.DIAG_TEST_STORAGE === 'postgres'
const postgres = onPostgres ? postgresForFile() : undefined
if (postgres) afterAll(() => postgres.stop())

/**
 * Starts the whole service, as `npm start` does, on a temporary data directory (a real
 * SQLite file and generated TLS material) behind a real HTTPS listener on loopback.
 */
export async function build(
  env: Record<string, string> = {},
  options: { logger?: Logger; wrapSync?: DatabaseOptions['wrapSync'] } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'diag-test-'))
  const database = postgres ? await postgres.database() : undefined
  const config = loadConfig({
    DIAG_DATA_DIR: dataDir,
    DIAG_HOST: '127.0.0.1',
    DIAG_PORT: '0',
    DIAG_API_TOKEN: testToken,
    DIAG_LOG_LEVEL: 'silent',
    // In-process tests run the TypeScript sources, which a worker thread cannot load; the
    // service processes (test/e2e, from dist/) use analysis threads.
    DIAG_ANALYSIS_THREADS: '0',
    ...(database ? { DIAG_DATABASE_URL: database.url } : {}),
    ...env,
  })
  const service = await startService(config, options.logger, options.wrapSync ? { wrapSync: options.wrapSync } : {})
  const ca = readFileSync(service.generatedCaFile ?? join(dataDir, 'tls', 'ca.pem'))
  let closed = false
  const rows: TestService['rows'] = async (sql, ...params) => {
    if (!database) {
      const statement = service.db.prepare(sql)
      if (statement.reader) return statement.all(...params) as Array<Record<string, unknown>>
      statement.run(...params)
      return []
    }
    let n = 0
    return (
      await database.pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows
  }
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
    async count(table) {
      const [row] = await rows(`SELECT count(*) AS n FROM ${table}`)
      return Number(row?.n)
    },
    rows,
    async close() {
      if (closed) return
      closed = true
      await service.stop()
      await database?.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
