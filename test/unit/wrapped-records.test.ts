import { describe, expect, it } from 'vitest'
import { PatternIndex } from '../../src/text/pattern-index.js'
import { joinWrappedRecords } from '../../src/text/wrapped-records.js'

// Records that wrap their message over several lines, verbatim from public issues.

/**
 * WebLogic server log, https://github.com/eclipse-ee4j/jersey/issues/3474. The corpus holds
 * it out (weblogic-jersey-3474-stuck): here it tests the scanner with patterns of this test
 * only; no built-in rule is written for it.
 */
const weblogic = [
  '####<Dec 7, 2016 3:09:32 PM GMT> <Info> <Health> <prlprws01> <PayRoll_Srv1> <weblogic.GCMonitor> <<anonymous>> <> <> <1481123372881> <BEA-310002> <48% of the total memory in the server is free.> ',
  `####<Dec 7, 2016 3:12:21 PM GMT> <Error> <WebLogicServer> <prlprws01> <PayRoll_Srv1> <[ACTIVE] ExecuteThread: '22' for queue: 'weblogic.kernel.Default (self-tuning)'> <<WLS Kernel>> <> <> <1481123541709> <BEA-000337> <[STUCK] ExecuteThread: '12' for queue: 'weblogic.kernel.Default (self-tuning)' has been busy for "645" seconds working on the request "Workmanager: default, Version: 5, Scheduled=true, Started=true, Started time: 645131 ms`,
  '", which is more than the configured time (StuckThreadMaxTime) of "600" seconds. Stack trace:',
  '\tsun.misc.Unsafe.park(Native Method)',
  '\tjava.util.concurrent.locks.LockSupport.park(LockSupport.java:198)',
].join('\n')

/** Payara 5 (ODL format), https://github.com/IQSS/dataverse/issues/8208 */
const payara = [
  '[2021-11-03T16:33:08.220+0100] [Payara 5.2020.6] [SEVERE] [] [javax.enterprise.system.core] [tid: _ThreadID=85 _ThreadName=admin-thread-pool::admin-listener(1)] [timeMillis: 1635953588220] [levelValue: 1000] [[',
  '  Exception while loading the app : EJB Container initialization error',
  'java.lang.Exception',
  '\tat com.sun.enterprise.connectors.inbound.ConnectorMessageBeanClient.setup(ConnectorMessageBeanClient.java:215)',
].join('\n')

/** GlassFish v3 (uniform log format), https://github.com/javaee/grizzly/issues/298 */
const glassfish = [
  '[#|2008-10-31T12:06:31.203-0400|INFO|glassfish|org.jvnet.hk2.osgiadapter|_ThreadID=17;_ThreadName=Thread-4;org.glassfish.connectors.connectors-internal-api',
  '[89];|Started bundle org.glassfish.connectors.connectors-internal-api [89]|#]',
  '',
  '[#|2008-10-31T12:06:31.234-0400|INFO|glassfish|javax.enterprise.system.core.security|_ThreadID=17;_ThreadName=Thread-4;com.sun.enterprise.security.provider.PolicyWrapper;|SEC1143:',
  'Loading policy provider com.sun.enterprise.security.provider.PolicyWrapper.|#]',
].join('\n')

const scanners = (index: PatternIndex) => [
  (log: string) => index.scan(log),
  (log: string) => index.scanRewriting(Buffer.from(log), (line) => line).matches,
]

describe('records wrapped over several lines', () => {
  const index = PatternIndex.fromSources([
    {
      key: 'stuck',
      source: '/busy for "\\d+" seconds working on the request .*, which is more than the configured time/',
    },
    { key: 'severe-load', source: '/\\[SEVERE\\].*Exception while loading the app/' },
    { key: 'code-and-text', source: '/SEC1143:.*Loading policy provider/' },
    { key: 'frame', source: 'sun.misc.Unsafe.park' },
    { key: 'into-trace', source: '/loading the app.*java\\.lang\\.Exception/' },
    { key: 'across-records', source: '/server is free\\.> .*####/' },
  ])

  for (const [name, scan] of scanners(index).entries()) {
    it(`are matched as one record, reported at their first line with the lines as read (${name === 0 ? 'scan' : 'scanRewriting'})`, () => {
      const stuck = scan(weblogic).get('stuck')
      expect(stuck?.line).toBe(2)
      expect(stuck?.context.map((c) => c.number)).toEqual([1, 2, 3, 4, 5])
      expect(stuck?.context[1]?.text).toMatch(/Started time: 645131 ms$/)
      expect(scan(payara).get('severe-load')?.line).toBe(1)
      expect(scan(glassfish).get('code-and-text')?.line).toBe(4)
    })

    it(`keep a stack trace on its own lines and never join two records (${name === 0 ? 'scan' : 'scanRewriting'})`, () => {
      expect(scan(weblogic).has('frame')).toBe(false)
      expect(scan(weblogic).has('across-records')).toBe(false)
      expect(scan(payara).has('into-trace')).toBe(false)
    })
  }

  it('joins in place: same length, only newlines inside a record become spaces', () => {
    for (const log of [weblogic, payara, glassfish]) {
      const raw = Buffer.from(log)
      const joined = joinWrappedRecords(raw) as Buffer
      expect(joined.length).toBe(raw.length)
      for (let i = 0; i < raw.length; i++) if (joined[i] !== raw[i]) expect([raw[i], joined[i]]).toEqual([10, 32])
    }
    const lines = (log: string) => (joinWrappedRecords(Buffer.from(log)) as Buffer).toString().split('\n')
    expect(lines(weblogic)).toHaveLength(4) // the record's two message lines joined, the two frames apart
    expect(lines(payara)).toHaveLength(3) // `[[` and its message; the exception and its frame apart
    expect(lines(glassfish)).toHaveLength(3) // each record one line, the empty line between them kept
  })

  it('leaves other logs alone', () => {
    const tomcat =
      '22-Nov-2026 04:55:00.000 SEVERE [main] org.apache.catalina.startup.Catalina.start The required Server component failed to start\norg.apache.catalina.LifecycleException: Protocol handler start failed'
    expect(joinWrappedRecords(Buffer.from(tomcat))).toBeNull()
  })
})
