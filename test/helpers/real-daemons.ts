import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

/** A free loopback port (the OS picks it, we release it, the daemon takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

export interface Daemon {
  child: ChildProcess
  url: string
  output: () => string
  stop: () => void
}

/** Starts a real daemon from Debian's packages and waits until `readyPath` answers 200. */
export async function startDaemon(binary: string, args: string[], port: number, readyPath: string): Promise<Daemon> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${binary} exited:\n${output}`)
    try {
      const res = await fetch(`${url}${readyPath}`)
      if (res.ok) break
    } catch {}
    if (Date.now() > deadline) throw new Error(`${binary} not ready in 30 s:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { child, url, output: () => output, stop: () => child.kill('SIGKILL') }
}

export interface AlertmanagerOptions {
  webhookUrl: string
  token: string
  caFile: string
  /** Seconds; a flush that failed is sent again at the next group interval. */
  groupInterval?: number
  /** Gossip: this instance's cluster port and its peers' (an HA pair), or none. */
  cluster?: { port: number; peers: number[] }
}

/** Alertmanager with one webhook receiver pointing at the service over HTTPS. */
export async function startAlertmanager(dir: string, options: AlertmanagerOptions) {
  const port = await freePort()
  const config = join(dir, 'alertmanager.yml')
  writeFileSync(
    config,
    `route:
  receiver: diagnostic-service
  group_by: ['alertname', 'appserver_instance']
  group_wait: 1s
  group_interval: ${options.groupInterval ?? 1}s
  repeat_interval: 1h
receivers:
  - name: diagnostic-service
    webhook_configs:
      - url: ${options.webhookUrl}
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: ${options.token}
          tls_config:
            ca_file: ${options.caFile}
`,
  )
  const cluster = options.cluster
    ? [
        `--cluster.listen-address=127.0.0.1:${options.cluster.port}`,
        `--cluster.advertise-address=127.0.0.1:${options.cluster.port}`,
        ...options.cluster.peers.map((peer) => `--cluster.peer=127.0.0.1:${peer}`),
        // How long the second of the pair waits for the first's notification log entry.
        '--cluster.peer-timeout=2s',
        '--cluster.gossip-interval=100ms',
        '--cluster.pushpull-interval=2s',
      ]
    : ['--cluster.listen-address=']
  return startDaemon(
    '/usr/bin/prometheus-alertmanager',
    [
      `--config.file=${config}`,
      `--storage.path=${join(dir, 'am-data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      ...cluster,
      '--log.level=warn',
    ],
    port,
    '/-/ready',
  )
}

/** Prometheus with the configuration given, on a free port, its data under `dir`. */
export async function runPrometheus(dir: string, configText: string): Promise<Daemon> {
  const port = await freePort()
  const config = join(dir, 'prometheus.yml')
  writeFileSync(config, configText)
  return startDaemon(
    '/usr/bin/prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'prom-data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    port,
    '/-/ready',
  )
}

/** Prometheus scraping the service's /metrics over TLS. */
export function startPrometheus(dir: string, options: { target: string; caFile: string }) {
  return runPrometheus(
    dir,
    `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: diagnostic-service
    scheme: https
    tls_config:
      ca_file: ${options.caFile}
    static_configs:
      - targets: ['${options.target}']
`,
  )
}

/** A counter or gauge from a daemon's own /metrics, summed over the series that match. */
export async function daemonMetric(url: string, name: string, labelFilter = ''): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  return text
    .split('\n')
    .filter((line) => line.startsWith(name) && line.includes(labelFilter))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)
}
