import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  cpSync,
  createWriteStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  type WriteStream,
  writeFileSync,
} from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { type Daemon, freePort, runPrometheus, startDaemon } from '../helpers/real-daemons.js'
import { realPackageFile, realTool } from '../helpers/real-tools.js'

// Real application servers for test/servers/ (issue: "Real application servers fail, the
// service diagnoses them"): a web application compiled here with javac, deployed on the
// Debian tomcat10 package under a CATALINA_BASE of its own, run as an unprivileged user,
// and probed by the real blackbox exporter for a real Prometheus.

const tomcatHome = '/usr/share/tomcat10'
const jettyHome = '/usr/share/jetty9'
const webappSources = join(dirname(new URL(import.meta.url).pathname), 'webapp')
/** The unprivileged user the servers run as when the tests run as root. */
const nobody = 65534

export function requireServerTools(): void {
  realTool('java', 'openjdk-17-jre-headless')
  realTool('javac', 'openjdk-17-jdk-headless')
  realPackageFile(join(tomcatHome, 'bin', 'bootstrap.jar'), 'tomcat10')
  realPackageFile(join(jettyHome, 'start.jar'), 'jetty9')
  realTool('prometheus', 'prometheus')
  realTool('prometheus-alertmanager', 'prometheus-alertmanager')
  realTool('prometheus-blackbox-exporter', 'prometheus-blackbox-exporter')
}

/** Lets the unprivileged user into `dir` and everything under it. */
function handOver(dir: string): void {
  if (process.getuid?.() !== 0) return
  chownSync(dir, nobody, nobody)
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) handOver(path)
    else chownSync(path, nobody, nobody)
  }
}

/** Directories above `dir` that the unprivileged user must be able to pass through. */
function openPath(dir: string): void {
  for (let d = dir; d !== '/' && d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode & 0o777
    if ((mode & 0o001) === 0) chmodSync(d, mode | 0o011)
  }
}

/**
 * Compiles the application into `classes`: as written (jakarta.servlet, Tomcat 10), or with
 * its imports turned to javax.servlet for Servlet 3.1 (Jetty 9).
 */
function compileWebapp(classes: string, api: 'jakarta' | 'javax'): void {
  const sources = readdirSync(webappSources).filter((f) => f.endsWith('.java'))
  let dir = webappSources
  if (api === 'javax') {
    dir = join(dirname(classes), 'src')
    mkdirSync(dir, { recursive: true })
    for (const file of sources)
      writeFileSync(
        join(dir, file),
        readFileSync(join(webappSources, file), 'utf8').replaceAll('jakarta.servlet', 'javax.servlet'),
      )
  }
  const servletApi =
    api === 'jakarta' ? join(tomcatHome, 'lib', 'servlet-api.jar') : join(jettyHome, 'lib', 'servlet-api-3.1.jar')
  execFileSync('javac', ['-proc:none', '-cp', servletApi, '-d', classes, ...sources.map((f) => join(dir, f))], {
    stdio: 'pipe',
  })
}

/** JULI logging to fixed file names (no date), which an inventory can name. */
const loggingProperties = `handlers = 1catalina.org.apache.juli.FileHandler, java.util.logging.ConsoleHandler
.handlers = 1catalina.org.apache.juli.FileHandler, java.util.logging.ConsoleHandler
1catalina.org.apache.juli.FileHandler.level = INFO
1catalina.org.apache.juli.FileHandler.directory = \${catalina.base}/logs
1catalina.org.apache.juli.FileHandler.prefix = catalina
1catalina.org.apache.juli.FileHandler.suffix = .log
1catalina.org.apache.juli.FileHandler.rotatable = false
1catalina.org.apache.juli.FileHandler.formatter = org.apache.juli.OneLineFormatter
java.util.logging.ConsoleHandler.level = INFO
java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter
`

/** A server's own directory, port, and the files and URL an operator's inventory names. */
export interface ServerBase {
  base: string
  port: number
  /** Its log: Tomcat's JULI file, or the file the harness keeps Jetty's console in. */
  log: string
  gcLog: string
  healthUrl: string
  /** The application's JVM metrics in the Prometheus text format (webapp/Metrics.java). */
  metricsUrl: string
}

/**
 * A CATALINA_BASE with the compiled application, its own port and fixed log names.
 * `maxThreads` bounds the request threads (stuck threads then starve the health check);
 * `stuckThreadValve: false` leaves out the StuckThreadDetectionValve, as Tomcat ships.
 */
export function prepareTomcat(
  dir: string,
  port: number,
  options: { maxThreads?: number; stuckThreadValve?: boolean } = {},
): ServerBase {
  const valve = '<Valve className="org.apache.catalina.valves.StuckThreadDetectionValve" threshold="3" />'
  const base = join(dir, 'tomcat')
  for (const sub of ['conf', 'logs', 'temp', 'work', 'webapps/app/WEB-INF/classes'])
    mkdirSync(join(base, sub), { recursive: true })
  for (const file of ['web.xml', 'context.xml', 'catalina.properties', 'tomcat-users.xml', 'jaspic-providers.xml'])
    cpSync(join('/etc/tomcat10', file), join(base, 'conf', file))
  writeFileSync(join(base, 'conf', 'logging.properties'), loggingProperties)
  writeFileSync(
    join(base, 'conf', 'server.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
  <Service name="Catalina">
    <Connector port="${port}" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000"
      maxThreads="${options.maxThreads ?? 50}" minSpareThreads="1" />
    <!-- The stuck-thread valve checks each second, not every ten. -->
    <Engine name="Catalina" defaultHost="localhost" backgroundProcessorDelay="1">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false">
        ${options.stuckThreadValve === false ? '' : valve}
      </Host>
    </Engine>
  </Service>
</Server>
`,
  )
  compileWebapp(join(base, 'webapps/app/WEB-INF/classes'), 'jakarta')
  return handOverBase(dir, base, port, 'catalina.log')
}

/** Gives the unprivileged user the prepared directory; the server's files, by convention. */
function handOverBase(dir: string, base: string, port: number, logName: string): ServerBase {
  openPath(dir)
  handOver(dir)
  return {
    base,
    port,
    log: join(base, 'logs', logName),
    gcLog: join(base, 'logs', 'gc.log'),
    healthUrl: `http://127.0.0.1:${port}/app/health`,
    metricsUrl: `http://127.0.0.1:${port}/app/metrics`,
  }
}

export interface RunningTomcat {
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

/** Starts Tomcat (Bootstrap, as catalina.sh does) and waits until its log says it started. */
export async function startTomcat(
  tomcat: ServerBase,
  options: {
    heapMb?: number
    jvmOptions?: string[]
    systemProperties?: Record<string, string>
    /** `ulimit -n` of the server process. */
    maxOpenFiles?: number
  } = {},
): Promise<RunningTomcat> {
  const args = [
    `-Xmx${options.heapMb ?? 128}m`,
    ...(options.jvmOptions ?? []),
    `-Xlog:gc*:file=${tomcat.gcLog}:uptime,level,tags`,
    `-Dcatalina.base=${tomcat.base}`,
    `-Dcatalina.home=${tomcatHome}`,
    `-Djava.io.tmpdir=${join(tomcat.base, 'temp')}`,
    `-Djava.util.logging.config.file=${join(tomcat.base, 'conf', 'logging.properties')}`,
    '-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager',
    ...Object.entries(options.systemProperties ?? {}).map(([k, v]) => `-D${k}=${v}`),
    '-cp',
    `${join(tomcatHome, 'bin', 'bootstrap.jar')}:${join(tomcatHome, 'bin', 'tomcat-juli.jar')}`,
    'org.apache.catalina.startup.Bootstrap',
    'start',
  ]
  const root = process.getuid?.() === 0
  // With a file limit, a shell lowers it and becomes the JVM (exec), as LimitNOFILE of a unit would.
  const [command, commandArgs] = options.maxOpenFiles
    ? ['sh', ['-c', `ulimit -n ${options.maxOpenFiles} && exec java "$@"`, 'java', ...args]]
    : ['java', args]
  const child = spawn(command, commandArgs as string[], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(root ? { uid: nobody, gid: nobody } : {}),
    env: { ...process.env, HOME: tomcat.base },
  })
  return serverProcess(child, /Server startup in/, 'Tomcat')
}

/** A jetty.base with the same application (as javax.servlet), annotations scanned, its own port. */
export function prepareJetty(dir: string, port: number): ServerBase {
  const base = join(dir, 'jetty')
  for (const sub of ['start.d', 'logs', 'webapps/app/WEB-INF/classes']) mkdirSync(join(base, sub), { recursive: true })
  writeFileSync(
    join(base, 'start.d', 'server.ini'),
    `--module=http,deploy,annotations\njetty.http.host=127.0.0.1\njetty.http.port=${port}\n`,
  )
  compileWebapp(join(base, 'webapps/app/WEB-INF/classes'), 'javax')
  // Jetty 9 logs to standard error; the harness keeps it in this file, as a service manager would.
  return handOverBase(dir, base, port, 'jetty-console.log')
}

/** Starts Jetty 9 from the Debian package's start.jar, its output kept in the console log. */
export async function startJetty(jetty: ServerBase, options: { heapMb?: number } = {}): Promise<RunningTomcat> {
  const args = [
    `-Xmx${options.heapMb ?? 128}m`,
    `-Xlog:gc*:file=${jetty.gcLog}:uptime,level,tags`,
    `-Djava.io.tmpdir=${jetty.base}`,
    '-jar',
    join(jettyHome, 'start.jar'),
    `jetty.home=${jettyHome}`,
    `jetty.base=${jetty.base}`,
  ]
  const root = process.getuid?.() === 0
  const child = spawn('java', args, {
    cwd: jetty.base,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(root ? { uid: nobody, gid: nobody } : {}),
    env: { ...process.env, HOME: jetty.base },
  })
  return serverProcess(child, /oejs\.Server:main: Started @/, 'Jetty', createWriteStream(jetty.log, { flags: 'a' }))
}

/**
 * Collects a server's output (and copies it to `console`, when the server logs only there),
 * waits until `ready` appears in it, and stops it with SIGKILL: a crash, not a shutdown.
 */
async function serverProcess(
  child: ChildProcess,
  ready: RegExp,
  name: string,
  consoleLog?: WriteStream,
): Promise<RunningTomcat> {
  let output = ''
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      consoleLog?.write(chunk)
    })
  }
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const deadline = Date.now() + 60_000
  while (!ready.test(output)) {
    if (child.exitCode !== null) {
      throw Object.assign(new Error(`${name} exited with code ${child.exitCode}:\n${output}`), {
        exitCode: child.exitCode,
      })
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start in 60 s:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    child,
    output: () => output,
    stop: async () => {
      child.kill('SIGKILL')
      await exited
      consoleLog?.end()
    },
  }
}

const handedOut = new Set<number>()

/**
 * A free port for a server that starts later, taken below the kernel's ephemeral range:
 * a port from `listen(0)` is released at once, and the daemons started meanwhile (their
 * ports also from `listen(0)`) or any outgoing connection could be given it again.
 */
export async function serverPort(): Promise<number> {
  const range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)
  const below = Number(range[0]) || 32768
  for (;;) {
    const port = 10000 + Math.floor(Math.random() * (below - 10000))
    if (handedOut.has(port)) continue
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer()
      probe.once('error', () => resolve(false))
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
    })
    if (free) {
      handedOut.add(port)
      return port
    }
  }
}

/** A TCP port that accepts and says nothing: "the HTTP port is already in use". */
export async function occupyPort(port: number) {
  const server = createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** Whether something accepts TCP connections on the port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** The real blackbox exporter with an http_2xx module of short time-outs. */
export async function startBlackbox(dir: string): Promise<Daemon> {
  const port = await freePort()
  const config = join(dir, 'blackbox.yml')
  writeFileSync(
    config,
    'modules:\n  http_2xx:\n    prober: http\n    timeout: 2s\n    http:\n      preferred_ip_protocol: ip4\n',
  )
  return startDaemon(
    '/usr/bin/prometheus-blackbox-exporter',
    [`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    port,
    '/-/healthy',
  )
}

/**
 * Prometheus probing one instance's health URL through the blackbox exporter, with the
 * alerting rule an SRE would write, sending to Alertmanager.
 */
export async function startPrometheusProbe(
  dir: string,
  options: { instance: string; healthUrl: string; blackbox: string; alertmanager: string },
): Promise<Daemon> {
  const rules = join(dir, 'rules.yml')
  writeFileSync(
    rules,
    `groups:
  - name: appserver
    interval: 1s
    rules:
      - alert: AppServerHealthCheckFailing
        expr: probe_success{job="app-health"} == 0
        labels:
          severity: critical
          environment: test
          host: localhost
          check: health
          appserver_instance: ${options.instance}
        annotations:
          summary: Health check of ${options.instance} failing
`,
  )
  return runPrometheus(
    dir,
    `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ['${rules}']
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['${options.alertmanager.replace(/^https?:\/\//, '')}']
scrape_configs:
  - job_name: app-health
    metrics_path: /probe
    params:
      module: [http_2xx]
    static_configs:
      - targets: ['${options.healthUrl}']
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - target_label: __address__
        replacement: ${options.blackbox.replace(/^https?:\/\//, '')}
`,
  )
}
