import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { migratePostgres } from '../../src/store/postgres/migrate.js'
import { createPool } from '../../src/store/postgres/pool.js'
import { freePort } from './real-daemons.js'
import { realPackageFile } from './real-tools.js'

const bin = '/usr/lib/postgresql/15/bin'

export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string
  port: number
  dataDir: string
  /** Its Unix socket's directory: `psql -h <socketDir>` reaches it whatever pg_hba.conf says of TCP. */
  socketDir: string
  /** A new, empty database on this server, and its URL (TCP; add `sslmode` for a TLS server). */
  createDatabase(name: string): Promise<string>
  /** `pg_ctl stop -m <mode>`: `immediate` is a crash, as a lost host would be. */
  stop(mode?: 'fast' | 'immediate'): void
  /** Starts it again on the same port and data, waiting until it accepts connections. */
  start(): void
  /** Stops it and removes its files. */
  close(): void
}

/** Runs a PostgreSQL tool as the `postgres` user: initdb refuses root, and the files are its. */
function asPostgres(tool: string, args: string[], options: { check?: boolean } = {}) {
  const asRoot = process.getuid?.() === 0
  const [command, commandArgs] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]]
    : [join(bin, tool), args]
  const result = spawnSync(command as string, commandArgs as string[], { encoding: 'utf8', timeout: 120_000 })
  if ((options.check ?? true) && result.status !== 0) {
    throw new Error(`${tool} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`)
  }
  return result
}

export interface PostgresOptions {
  /**
   * Serve TLS with this certificate (PEM files) and refuse TCP connections without it
   * (`hostssl` only in pg_hba.conf), as a production server reached over a network would.
   */
  tls?: { certFile: string; keyFile: string }
}

/**
 * Debian's PostgreSQL 15 in a temporary directory on a free loopback port, started by the
 * test itself (installed first when missing and run as root), trust authentication on
 * loopback only, torn down by `close`. `fsync` stays on: the durability tests mean it.
 */
export async function startPostgres(serverOptions: PostgresOptions = {}): Promise<Postgres> {
  realPackageFile(join(bin, 'initdb'), 'postgresql')
  reapOrphans()
  const parent = mkdtempSync(join(tmpdir(), clusterPrefix))
  writeFileSync(join(parent, ownerFile), String(process.pid))
  // The temporary folders above are root's, 0700: the postgres user must reach its own.
  chmodSync(parent, 0o755)
  const dataDir = join(parent, 'data')
  const socketDir = join(parent, 'socket')
  execFileSync('mkdir', ['-p', dataDir, socketDir])
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dataDir, uid, gid)
    chownSync(socketDir, uid, gid)
    for (let dir = tmpdir(); dir !== '/' && dir.startsWith('/tmp'); dir = join(dir, '..')) chmodSync(dir, 0o755)
  }
  asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'])
  const port = await freePort()
  const tlsOptions = serverOptions.tls ? serveTls(dataDir, serverOptions.tls) : []
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${socketDir}`,
    '-c max_connections=200',
    '-c shared_buffers=64MB',
    ...tlsOptions,
  ].join(' ')
  const logFile = join(socketDir, 'postgres.log')
  const start = () => {
    asPostgres('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '120', 'start'])
  }
  const stop = (mode: 'fast' | 'immediate' = 'fast') => {
    asPostgres('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '120', 'stop'], { check: false })
  }
  start()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let closed = false
  return {
    url,
    port,
    dataDir,
    socketDir,
    async createDatabase(name) {
      // Over the socket: a server that takes TCP only over TLS still takes this.
      const client = new pg.Client({ host: socketDir, port, user: 'postgres', database: 'postgres' })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
      } finally {
        await client.end()
      }
      return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`
    },
    stop,
    start,
    close() {
      if (closed) return
      closed = true
      stop('immediate')
      rmSync(parent, { recursive: true, force: true })
    },
  }
}

const clusterPrefix = 'diag-pg-'
/** The test process that started a cluster: while it lives, the cluster is its own. */
const ownerFile = 'owner.pid'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Stops and removes the clusters of test processes that died without their `afterAll` (a
 * time-out, a SIGKILL, an interrupted run): each would keep a PostgreSQL running, with its
 * memory and a port, on a CI machine or a developer's for good. A cluster whose owner is
 * unknown (being created) or alive is left alone.
 */
export function reapOrphans() {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(clusterPrefix)) continue
    const parent = join(tmpdir(), name)
    let owner: number
    try {
      owner = Number(readFileSync(join(parent, ownerFile), 'utf8'))
    } catch {
      continue
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue
    const dataDir = join(parent, 'data')
    if (existsSync(join(dataDir, 'postmaster.pid'))) {
      asPostgres('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop'], { check: false })
    }
    rmSync(parent, { recursive: true, force: true })
  }
}

/**
 * The server's certificate and key in its data directory (the key the postgres user's,
 * 0600, or PostgreSQL refuses it), and a pg_hba.conf that takes TCP only over TLS.
 */
function serveTls(dataDir: string, tls: { certFile: string; keyFile: string }): string[] {
  const certFile = join(dataDir, 'server.crt')
  const keyFile = join(dataDir, 'server.key')
  copyFileSync(tls.certFile, certFile)
  copyFileSync(tls.keyFile, keyFile)
  const hbaFile = join(dataDir, 'pg_hba.conf')
  writeFileSync(hbaFile, 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n')
  chmodSync(keyFile, 0o600)
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    for (const file of [certFile, keyFile, hbaFile]) chownSync(file, uid, gid)
  }
  return ['-c ssl=on', `-c ssl_cert_file=${certFile}`, `-c ssl_key_file=${keyFile}`]
}

/**
 * One PostgreSQL for a test file: started on first use (call `start` in a `beforeAll` with
 * a long time-out, so no test pays for `initdb`), an empty migrated database per call of
 * `database`, with one pool per replica on it; `stop` in an `afterAll`.
 */
export function postgresForFile() {
  let server: Postgres | undefined
  let databases = 0
  const start = async () => {
    server ??= await startPostgres()
    return server
  }
  return {
    start,
    async database(replicas = 1) {
      const url = await (await start()).createDatabase(`test_${++databases}`)
      const pools = Array.from({ length: replicas }, () => createPool(url, { timeoutMs: 10_000, max: 4 }))
      const pool = pools[0] as pg.Pool
      await migratePostgres(pool)
      return {
        url,
        pool,
        pools,
        rows: async (sql: string) => (await pool.query(sql)).rows as Array<Record<string, unknown>>,
        close: async () => {
          for (const each of pools) await each.end()
        },
      }
    },
    stop: () => server?.close(),
  }
}
