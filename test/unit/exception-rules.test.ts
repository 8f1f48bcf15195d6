import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { emptyEvidence, withLogText } from '../../src/evidence/empty-evidence.js'
import { loadBuiltinRules } from '../../src/rules/builtin-loader.js'
import { DiagnosisEngine } from '../../src/rules/diagnosis-engine.js'
import { PatternSafety } from '../../src/rules/pattern-safety.js'
import { RuleRejectedError } from '../../src/rules/rule-errors.js'
import { offlineCustomRule, readRulepack } from '../../src/rules/rule-input.js'
import { RulesService } from '../../src/rules/rules-service.js'
import { seedRulepackFile } from '../../src/rules/seed.js'
import type { Evidence } from '../../src/rules/types.js'
import { openDatabase } from '../../src/store/sqlite/database.js'
import { RulesRepository } from '../../src/store/sqlite/rules-repository.js'
import { excerptOfText } from '../../src/text/excerpt.js'
import { mysqlNestedBlock } from '../helpers/mysql-nested-block.js'

// Exception facts in the engine (docs/design.md, "Exceptions and codes", "Ranking",
// "Confidence is earned"): the built-ins and the seed use them, custom rules may, and a
// finding that rests on them earns "confirmed" like one that rests on log lines.

const alert = { alertname: 'AppServerHealthCheckFailing', instance: 'app-01', severity: 'critical' }
const createdAt = '2026-11-22T05:00:00.000Z'
const { rules: builtins, versions } = loadBuiltinRules()
const seed = readRulepack(seedRulepackFile).map((body, i) => offlineCustomRule(body, i + 1, 'seed', createdAt))
const engine = new DiagnosisEngine(builtins, versions, seed)

const withLog = (lines: readonly string[]) => withLogText(emptyEvidence(alert), lines.join('\n'))
const diagnose = async (lines: readonly string[]) => {
  const { primary, matches } = await engine.diagnose(withLog(lines))
  return {
    primary: [primary.rule.branch, primary.classification],
    branches: matches.map((m) => m.rule.branch),
  }
}

const psqlRefused = [
  '2026-11-22 05:00:01.002 ERROR 1 --- [nio-8080-exec-3] o.h.engine.jdbc.spi.SqlExceptionHelper : Connection refused',
  'org.postgresql.util.PSQLException: Connection to db.internal:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.',
  '\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:319)',
  'Caused by: java.net.ConnectException: Connection refused',
  '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
  '\t... 42 more',
]

describe('the ranking rule: the deepest cause decides the kind, the component decides whose', () => {
  it('diagnoses a PSQLException refused and caused by ConnectException as TD-18, never TD-01', async () => {
    expect(await diagnose(psqlRefused)).toEqual({ primary: ['TD-18', 'probable_cause'], branches: ['TD-18'] })
    // The same trace twice: TD-18 is corroborated, and the refusal is still not an upstream's.
    expect(await diagnose([...psqlRefused, ...psqlRefused])).toEqual({
      primary: ['TD-18', 'confirmed_cause'],
      branches: ['TD-18'],
    })
  })

  it('diagnoses MySQL Connector/J 5’s nested refusal as TD-18, never a confirmed TD-01 from its MESSAGE: header', async () => {
    // The header repeats the refusal that the driver's trace under STACKTRACE: shows with its frames.
    const result = await diagnose([...mysqlNestedBlock])
    expect(result.primary[0]).toBe('TD-18')
    expect(result.branches).not.toContain('TD-01')
  })

  it('still diagnoses an upstream refusal that no component claims as TD-01, beside a database refusal', async () => {
    const upstream = [
      'org.springframework.web.client.ResourceAccessException: I/O error on GET request for "http://pricing:8080/quote": Connection refused',
      'Caused by: java.net.ConnectException: Connection refused',
      '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
    ]
    expect((await diagnose([...psqlRefused, ...upstream])).branches.sort()).toEqual(['TD-01', 'TD-18'])
  })

  it('diagnoses a JDBC read time-out as the database’s connection (TD-18) before the generic time-out (TD-13)', async () => {
    const result = await diagnose([
      'org.hibernate.exception.JDBCConnectionException: could not extract ResultSet',
      'Caused by: com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure',
      'Caused by: java.net.SocketTimeoutException: Read timed out',
      '\tat java.base/java.net.SocketInputStream.socketRead0(Native Method)',
      '\tat com.mysql.cj.protocol.ReadAheadInputStream.fill(ReadAheadInputStream.java:107)',
    ])
    expect(result.primary).toEqual(['TD-18', 'probable_cause'])
    expect(result.branches).toEqual(['TD-18', 'TD-13'])
  })

  it('reads a SQLSTATE on a line no driver class or frame is on as the database’s: a read time-out there is TD-18, not TD-13', async () => {
    // https://github.com/alibaba/druid/issues/5462: a collector's timestamp column before
    // each line, so the Db2 driver's message goes on in a line of its own, with the codes.
    const db2 = [
      "2023-10-13T11:47:16+08:00\tcom.ibm.db2.jcc.am.DisconnectNonTransientConnectionException: [jcc][t4][2030][11211][4.32.28] A communication error occurred during operations on the connection's underlying socket, socket input stream, ",
      '2023-10-13T11:47:16+08:00\tor socket output stream.  Error location: Reply.fill() - socketInputStream.read (-1).  Message: Read timed out. ERRORCODE=-4499, SQLSTATE=08001',
      '2023-10-13T11:47:16+08:00\t\tat com.ibm.db2.jcc.am.b7.a(b7.java:338)',
    ]
    expect((await diagnose(db2)).primary).toEqual(['TD-18', 'probable_cause'])
    expect((await diagnose(db2.slice(1))).primary).toEqual(['TD-18', 'probable_cause'])
    // The same time-out with no code on its line is nobody's in particular.
    expect((await diagnose(['java.net.SocketTimeoutException: Read timed out'])).primary).toEqual([
      'TD-13',
      'probable_cause',
    ])
  })

  it('diagnoses exceptions no pattern names by their class or code: NoSuchMethodError, a Chinese ORA- message', async () => {
    expect(
      await diagnose([
        'java.lang.NoSuchMethodError: org.apache.commons.lang3.StringUtils.isAnyBlank([Ljava/lang/CharSequence;)Z',
        '\tat com.example.orders.Export.render(Export.java:212)',
      ]),
    ).toEqual({ primary: ['TD-15', 'probable_cause'], branches: ['TD-15'] })
    // https://github.com/t8y2/dbx/issues/511
    expect(
      await diagnose([
        'java.sql.SQLException: ORA-12541: 无法连接。host 120.79.184.44 port 51521 中没有监听程序。 (CONNECTION_ID=cCUFCf3fRA22cE4z1fxLXg==) https://docs.oracle.com/error-help/db/ora-12541/',
      ]),
    ).toEqual({ primary: ['TD-18', 'probable_cause'], branches: ['TD-18'] })
  })

  it('counts the line that logged a trace as part of it: a start-up banner over a LinkageError is TD-15, over refused credentials TD-18', async () => {
    // https://github.com/spring-projects-experimental/spring-boot-thin-launcher/issues/61
    expect(
      await diagnose([
        ' ERROR org.springframework.boot.SpringApplication - Application run failed',
        'java.lang.NoSuchMethodError: org.springframework.util.Assert.isTrue(ZLjava/util/function/Supplier;)V',
        '        at org.springframework.boot.context.properties.bind.Bindable.withExistingValue(Bindable.java:162)',
      ]),
    ).toEqual({ primary: ['TD-15', 'probable_cause'], branches: ['TD-15', 'TD-05'] })
    // https://github.com/Grashjs/cmms/issues/38
    expect(
      await diagnose([
        '2025-04-25 16:31:18.179 ERROR 1 --- [           main] o.s.boot.SpringApplication               : Application run failed',
        'org.springframework.beans.factory.BeanCreationException: Error creating bean with name \'liquibase\' defined in class path resource [org/springframework/boot/autoconfigure/liquibase/LiquibaseAutoConfiguration$LiquibaseConfiguration.class]: Invocation of init method failed; nested exception is liquibase.exception.DatabaseException: org.postgresql.util.PSQLException: FATAL: password authentication failed for user "hamzamix"',
        '\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean(AbstractAutowireCapableBeanFactory.java:1804) ~[spring-beans-5.3.19.jar!/:5.3.19]',
      ]),
    ).toEqual({ primary: ['TD-18', 'probable_cause'], branches: ['TD-18', 'TD-05'] })
    // The same banner over a cause the start-up failure owns (a port in use) stays TD-05.
    expect(
      await diagnose([
        '2025-04-25 16:31:18.179 ERROR 1 --- [           main] o.s.boot.SpringApplication               : Application run failed',
        'java.net.BindException: Address already in use',
        '\tat java.base/sun.nio.ch.Net.bind0(Native Method)',
      ]),
    ).toMatchObject({ branches: ['TD-05'] })
    // A line that logs its own exception owns no trace below it: an independent start-up banner is not gainsaid.
    expect(
      (
        await diagnose([
          '2025-04-25 16:31:18.179 ERROR 1 --- [           main] o.s.boot.SpringApplication               : Application run failed',
          '2025-04-25 16:31:19.002 ERROR 1 --- [     worker-1] c.e.Jobs : job failed: java.lang.NoSuchMethodError: com.example.Foo.bar()V',
        ])
      ).branches,
    ).toEqual(['TD-05', 'TD-15'])
  })

  it('never ranks an operator’s pattern rule as contradicted: it has no meaning the reader could gainsay', async () => {
    const custom = offlineCustomRule(
      {
        branch: 'OPS-05',
        ruleName: 'OrdersDatabaseHost',
        category: 'database_persistence',
        targetSource: 'local_file',
        pattern: 'db.internal:5432',
        assessment: 'The orders database host refused connections.',
        classification: 'probable_cause',
        confidence: 'medium',
        recommendedActions: ['Check the orders database.'],
      },
      11,
      'test',
      createdAt,
    )
    const withCustom = new DiagnosisEngine(builtins, versions, [...seed, custom])
    const { matches } = await withCustom.diagnose(withLog(psqlRefused))
    // Both probable: the operator's rule at 60, TD-18 (the reader's verdict) at 50.
    expect(matches.map((m) => m.rule.branch)).toEqual(['OPS-05', 'TD-18'])
  })

  it('shows the line of the exception that supports a finding with no pattern of its own', async () => {
    const { primary } = await engine.diagnose(withLog(psqlRefused))
    expect(primary.logMatch).toMatchObject({
      line: 2,
      text: expect.stringMatching(/^org\.postgresql\.util\.PSQLException/),
    })
  })
})

describe('"confirmed" stays earned with exception facts (docs/design.md, "Confidence is earned")', () => {
  it('does not confirm an exception logged at DEBUG as handled, however often its wording repeats', async () => {
    const handled = [
      '2026-11-22 05:00:01 DEBUG o.a.c.c.C.[.[.[/].[dispatcherServlet] - Handled exception: java.net.ConnectException: Connection refused',
      'java.net.ConnectException: Connection refused',
      '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
    ]
    // TD-01's wording is on two lines, which would corroborate it; every exception is handled.
    const result = await diagnose([...handled, ...handled])
    expect(result.primary).not.toEqual(['TD-01', 'confirmed_cause'])
    expect(result.primary[1]).not.toBe('confirmed_cause')
  })

  it('does not confirm a failure that a retry loop’s earlier attempts showed and its last attempt did not', async () => {
    // https://github.com/yegor256/rultor/issues/54: the first attempts read timed out, the
    // later ones failed otherwise (`Packet corrupt`, no cause the catalogue knows). Time-outs
    // the loop retried are handled: TD-13 is a probable cause at most, never confirmed.
    const attempts = [
      '117:56 INFO Opening SSH session to ubuntu@54.224.136.117:22...',
      '117:57 WARNING attempt #1/10 failed with com.jcraft.jsch.JSchException in 1s: timeout: socket is not established',
      '118:28 WARNING attempt #2/10 failed with com.jcraft.jsch.JSchException in 1s: Session.connect: java.net.SocketTimeoutException: Read timed out',
      '119:29 WARNING attempt #3/10 failed with com.jcraft.jsch.JSchException in 1s: Session.connect: java.net.SocketTimeoutException: Read timed out',
      '121:00 WARNING attempt #4/10 failed with com.jcraft.jsch.JSchException in 46ms: SSH_MSG_DISCONNECT: 2 Packet corrupt ',
      '140:30 WARNING attempt #10/10 failed with com.jcraft.jsch.JSchException in 25ms: Packet corrupt',
    ]
    expect((await diagnose(attempts)).primary[1]).not.toBe('confirmed_cause')
  })

  it('does not confirm a wording repeated only inside another failure’s message: quoted, not thrown', async () => {
    // https://github.com/spring-projects/spring-ai/pull/939: the Couchbase SDK's time-out
    // lists its endpoints' last connect failures in its JSON context, over lines of their own.
    // The log throws the time-out, which the reader does not read as a refusal: whose refusal
    // it is (a database's, here) the lines do not say, so repetition earns nothing.
    const refused =
      '{"lastConnectAttemptFailure":"finishConnect(..) failed: Connection refused: localhost/127.0.0.1:8091 - Check server ports and cluster encryption setting.","state":"disconnected","circuit_breaker_state":"disabled"},'
    const quoted = [
      'Caused by: com.couchbase.client.core.error.UnambiguousTimeoutException: WaitUntilReady timed out in stage WAIT_FOR_CONFIG (spent PT1.001939792S in that stage) {"bucket":"example","checkedServices":',
      '[],"desiredState":"ONLINE","remainingPingTargets":{},"services":{"mgmt":[{"last_activity_us":1006741,"state":"connected","circuit_breaker_state":"disabled","id":"0x9367b2dd",',
      `"remote":"localhost:53016","local":"127.0.0.1:53070"},${refused}`,
      `${refused}${refused}`,
    ]
    expect((await diagnose(quoted)).primary).toEqual(['TD-01', 'probable_cause'])
    // The same words thrown, as the refusal itself on two lines, still confirm it.
    const thrown = [
      'io.netty.channel.AbstractChannel$AnnotatedConnectException: finishConnect(..) failed: Connection refused: localhost/127.0.0.1:8091',
      'Caused by: java.net.ConnectException: finishConnect(..) failed: Connection refused',
    ]
    expect((await diagnose(thrown)).primary).toEqual(['TD-01', 'confirmed_cause'])
  })

  it('does not read work rejected by a terminated executor as a saturated one (TD-10), even repeated', async () => {
    // https://github.com/flightstats/hub/issues/531
    const rejected = [
      'ERROR 2016-07-11 13:44:32,096 [main-EventThread] org.apache.curator.framework.imps.CuratorFrameworkImpl - Event listener threw exception',
      'java.util.concurrent.RejectedExecutionException: Task java.util.concurrent.FutureTask@5ff3710b rejected from java.util.concurrent.ThreadPoolExecutor@47d23cd0[Terminated, pool size = 0, active threads = 0, queued tasks = 0, completed tasks = 3666]',
      '\tat java.util.concurrent.ThreadPoolExecutor$AbortPolicy.rejectedExecution(ThreadPoolExecutor.java:2047) ~[na:1.8.0_77]',
    ]
    expect(await diagnose([...rejected, ...rejected])).toEqual({
      primary: ['TD-08', 'undetermined'],
      branches: ['TD-08'],
    })
    // Netty's event loop words the same shutdown its own way. https://github.com/redisson/redisson/issues/3988
    const netty = [
      'java.util.concurrent.RejectedExecutionException: event executor terminated',
      '        at io.netty.util.concurrent.SingleThreadEventExecutor.reject(SingleThreadEventExecutor.java:926) ~[patched_1.17.1.jar:git-Airplane-92]',
    ]
    expect(await diagnose(netty)).toEqual({ primary: ['TD-08', 'undetermined'], branches: ['TD-08'] })
    // A saturated pool is still one.
    expect(
      (
        await diagnose([
          'java.util.concurrent.RejectedExecutionException: Task java.util.concurrent.FutureTask@1 rejected from java.util.concurrent.ThreadPoolExecutor@2[Running, pool size = 8, active threads = 8, queued tasks = 100, completed tasks = 9]',
        ])
      ).primary,
    ).toEqual(['TD-10', 'probable_cause'])
  })

  it('does not confirm a SQLSTATE on a statement that was retried, however many attempts logged it', async () => {
    const attempt = (n: number) => [
      `2026-11-22 05:00:0${n} WARN  o.h.e.j.s.SqlExceptionHelper - SQL Error: 0, SQLState: 40001`,
      `2026-11-22 05:00:0${n} ERROR o.h.e.j.s.SqlExceptionHelper - ERROR: could not serialize access due to concurrent update`,
      `2026-11-22 05:00:0${n} INFO  c.e.o.RetryingTransactions - serialization failure, retrying transaction (attempt ${n})`,
    ]
    const result = await diagnose([
      ...attempt(1),
      ...attempt(2),
      ...attempt(3),
      '2026-11-22 05:00:04 INFO  c.e.o.Orders - order 42 committed',
    ])
    expect(result.primary[1]).not.toBe('confirmed_cause')
  })

  it('diagnoses a JVM error’s reason printed without its class as that error, probable only however often it repeats', async () => {
    // test/corpus/excerpts/hazelcast.json, hazelcast-15454-client-on-liberty-heap-space (tuning part),
    // from https://github.com/hazelcast/hazelcast/issues/15454: three bare reasons, no class.
    const hazelcast = [
      '[WARNING ] file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml [dev] [3.12.2] ClientConnection{alive=false, connectionId=5, channel=NioChannel{/10.1.26.254:34825->/10.1.253.87:80}, remoteEndpoint=null} closed. Reason: Exception in ClientConnection{alive=true, connectionId=5}, thread=hz.file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml.IO.thread-in-0',
      'Java heap space',
      '[WARNING ] file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml [dev] [3.12.2] Exception during initial connection to [10.1.253.87]:80: com.hazelcast.core.HazelcastException: java.io.IOException: Packet not sent to null',
      '[INFO    ] file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml [dev] [3.12.2] Trying to connect to [10.1.85.29]:80 as owner member',
      '[ERROR   ] file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml [dev] [3.12.2] Java heap space',
      'Java heap space',
    ]
    expect(await diagnose(hazelcast)).toEqual({ primary: ['TD-02', 'probable_cause'], branches: ['TD-02'] })
    // The analysis thread's path (the scan notes the candidate lines) reads the same records.
    const text = hazelcast.join('\n')
    const sent: Evidence = {
      ...withLogText(emptyEvidence(alert), text),
      log: { matches: engine.scan(text), exceptions: engine.readExceptions(text) },
    }
    expect((await engine.diagnose(sent)).primary.rule.branch).toBe('TD-02')
    // The error's own line, twice, still earns "confirmed"; a bare reason beside it adds nothing to earn it.
    const own = 'Exception in thread "pool-1-thread-1" java.lang.OutOfMemoryError: Metaspace'
    expect((await diagnose(['ERROR c.e.Loader - Metaspace', own])).primary).toEqual(['TD-03', 'probable_cause'])
    expect((await diagnose([own, own])).primary).toEqual(['TD-03', 'confirmed_cause'])
    // A bare reason logged at DEBUG was handled: no finding.
    expect(await diagnose(['2026-11-24 10:00:00 DEBUG c.e.Cache - eviction failed: Java heap space'])).toEqual({
      primary: ['TD-08', 'undetermined'],
      branches: ['TD-08'],
    })
  })

  it('diagnoses a host name a client library quotes as its cause’s message as a DNS failure (TD-17), probable however often', async () => {
    // https://github.com/aws/aws-sdk-java/issues/813 (test/corpus/excerpts/aws-sdk.json): the
    // SDK's wrapper, its UnknownHostException cause not in view.
    const aws = [
      'com.amazonaws.SdkClientException: Unable to execute HTTP request: mybucket.s3.us-east-2.amazonaws.com',
      'at com.amazonaws.http.AmazonHttpClient$RequestExecutor.handleRetryableException (AmazonHttpClient.java:1175)',
    ]
    expect(await diagnose(aws)).toEqual({ primary: ['TD-17', 'probable_cause'], branches: ['TD-17'] })
    // An inferred cause never corroborates: the same record three times is still probable.
    expect((await diagnose([...aws, ...aws, ...aws])).primary).toEqual(['TD-17', 'probable_cause'])
    // Other quoted words are read as they stand: a read time-out is TD-13, not a DNS failure.
    expect(
      (await diagnose(['com.amazonaws.SdkClientException: Unable to execute HTTP request: Read timed out'])).primary,
    ).toEqual(['TD-13', 'probable_cause'])
  })

  it('diagnoses the SQL Server driver’s localised connection failure without class or code as the database (TD-18), probable', async () => {
    // test/corpus/excerpts/sqlserver.json, sqlserver-dbeaver-19358-tcp-german (tuning part),
    // from https://github.com/dbeaver/dbeaver/issues/19358
    const message =
      "!MESSAGE Fehler beim Herstellen der TCP/IP-Verbindung mit dem Host '172.16.84.68/mssqllocaldb', Port 1433. Fehler: '172.16.84.68/mssqllocaldb. Überprüfen Sie die Verbindungseigenschaften. Stellen Sie sicher, dass eine SQL Server-Instanz auf dem Host ausgeführt wird und am Port TCP/IP-Verbindungen akzeptiert. Vergewissern Sie sich, dass am Port keine TCP-Verbindungen durch eine Firewall blockiert werden.'."
    expect(
      await diagnose([
        '!ENTRY org.jkiss.dbeaver.model 4 0 2023-03-09 10:09:51.254',
        message,
        '!SUBENTRY 1 org.jkiss.dbeaver.model 4 0 2023-03-09 10:09:51.254',
        message,
        '!STACK 0',
      ]),
    ).toEqual({ primary: ['TD-18', 'probable_cause'], branches: ['TD-18'] })
  })

  it('reads no exception from class names in a JVM flag listing or a classpath', async () => {
    // https://github.com/openboxes/openboxes/issues/1412, with the OOM flags of a production JVM added to its listing
    const listing = [
      'tomcat7  29200     1 99 15:11 ?        00:01:51 /usr/lib/jvm/default-java/bin/java -Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager -XX:+HeapDumpOnOutOfMemoryError -XX:OnOutOfMemoryError=/bin/kill -XX:+ExitOnOutOfMemoryError -Dreactor.errorHandler=io.example.FatalError -Xmx2048m -classpath /usr/share/tomcat7/bin/bootstrap.jar:/usr/share/tomcat7/bin/tomcat-juli.jar org.apache.catalina.startup.Bootstrap start',
    ]
    expect(engine.readExceptions(listing.join('\n'))).toEqual([])
    expect(await diagnose([...listing, ...listing])).toEqual({
      primary: ['TD-08', 'undetermined'],
      branches: ['TD-08'],
    })
  })

  it('gives the same findings from the text as from the records the analysis thread sends', async () => {
    const text = [...psqlRefused, ...psqlRefused].join('\n')
    const fromText = await engine.diagnose(withLogText(emptyEvidence(alert), text))
    const sent: Evidence = {
      ...withLogText(emptyEvidence(alert), text),
      log: { matches: engine.scan(text), exceptions: engine.readExceptions(text) },
    }
    const fromRecords = await engine.diagnose(sent)
    expect(fromRecords.matches.map((m) => [m.rule.branch, m.classification, m.logMatch?.line])).toEqual(
      fromText.matches.map((m) => [m.rule.branch, m.classification, m.logMatch?.line]),
    )
    expect(excerptOfText(text).text).toBe(text)
  })
})

describe('kinds the families retired in the second round showed (taxonomy 1.6.0, the reader)', () => {
  it('reads the Neo4j driver’s ServiceUnavailableException as the database unreachable (TD-18), as its component', async () => {
    // https://github.com/neo4j/neo4j-jdbc/issues/225 (test/corpus/excerpts/neo4j.json)
    const neo4j = [
      'Exception in thread "main" org.neo4j.driver.exceptions.ServiceUnavailableException: Unable to connect to example.com:7687, ensure the database is running and that there is a working network connection to it.',
      '\tat org.neo4j.driver.internal.util.Futures.blockingGet(Futures.java:143)',
    ]
    expect(await diagnose(neo4j)).toEqual({ primary: ['TD-18', 'probable_cause'], branches: ['TD-18'] })
    // A refusal under the driver's frames is the database's, not an upstream's (Ranking).
    const refused = [
      'org.neo4j.driver.exceptions.ServiceUnavailableException: Unable to connect to localhost:7687, ensure the database is running and that there is a working network connection to it.',
      '\tat org.neo4j.driver.internal.util.Futures.blockingGet(Futures.java:143)',
      'Caused by: io.netty.channel.AbstractChannel$AnnotatedConnectException: Connection refused: localhost/127.0.0.1:7687',
      'Caused by: java.net.ConnectException: Connection refused',
      '\tat org.neo4j.driver.internal.async.connection.ChannelConnectedListener.operationComplete(ChannelConnectedListener.java:62)',
    ]
    expect((await diagnose(refused)).primary[0]).toBe('TD-18')
  })

  it('reads the JDK’s own `Connect timed out` (JDK 13+) as a time-out (TD-13), whatever client quotes it', async () => {
    // https://github.com/apache/ignite/issues/11268 (test/corpus/excerpts/ignite.json): the
    // thin client's own exception carries NioSocketImpl's message.
    const ignite = [
      'Starting Ignite thin client',
      'Exception in thread "main" org.apache.ignite.client.ClientConnectionException: Connect timed out',
      '\tat org.apache.ignite.internal.client.thin.io.gridnioserver.GridNioClientConnectionMultiplexer.open(GridNioClientConnectionMultiplexer.java:197)',
    ]
    expect(await diagnose(ignite)).toEqual({ primary: ['TD-13', 'probable_cause'], branches: ['TD-13'] })
  })

  it('reads a SOAP stack’s Fault as a throwable: CXF’s SoapFault quoting ETIMEDOUT is a time-out (TD-13)', async () => {
    // https://github.com/OxalisCommunity/Oxalis-AS4/issues/90 (test/corpus/excerpts/cxf.json)
    const cxf = [
      '2020-02-14 12:38:23,706 WARN [org.apache.cxf.phase.PhaseInterceptorChain] Interceptor for {oxalis.difi.no/}outbound-service#{http://cxf.apache.org/jaxws/dispatch}Invoke has thrown exception, unwinding now',
      'org.apache.cxf.binding.soap.SoapFault: Connection timed out (Connection timed out)',
      'at org.apache.cxf.binding.soap.saaj.SAAJOutInterceptor$SAAJOutEndingInterceptor.handleMessage(SAAJOutInterceptor.java:221)',
    ]
    expect(await diagnose(cxf)).toEqual({ primary: ['TD-13', 'probable_cause'], branches: ['TD-13'] })
  })
})

describe('kinds the families retired in the third round showed (taxonomy 1.7.0, the reader)', () => {
  it('reads Hystrix’s failure types from its one exception: a thread pool or semaphore full (TD-10), a time-out (TD-13)', async () => {
    // https://github.com/Netflix/Hystrix/issues/1158 (test/corpus/excerpts/hystrix.json): the
    // message AbstractCommand builds for FailureType.REJECTED_THREAD_EXECUTION.
    const queued = [
      'com.netflix.hystrix.exception.HystrixRuntimeException: OfferStreamServiceClientPrimaryGroup could not be queued for execution and fallback disabled.',
      '        at com.netflix.hystrix.AbstractCommand.handleFallbackDisabledByEmittingError(AbstractCommand.java:1052)',
    ]
    expect(await diagnose(queued)).toEqual({ primary: ['TD-10', 'probable_cause'], branches: ['TD-10'] })
    // REJECTED_SEMAPHORE_EXECUTION, in the words of the same source (a semaphore bulkhead full,
    // like Resilience4j's BulkheadFullException).
    const semaphore = [
      'com.netflix.hystrix.exception.HystrixRuntimeException: GetNameCommand could not acquire a semaphore for execution and no fallback available.',
      '\tat com.netflix.hystrix.AbstractCommand$22.call(AbstractCommand.java:819)',
    ]
    expect((await diagnose(semaphore)).primary).toEqual(['TD-10', 'probable_cause'])
    // https://github.com/spring-cloud/spring-cloud-netflix/issues/595 (FailureType.TIMEOUT).
    const timedOut = [
      'Caused by: com.netflix.hystrix.exception.HystrixRuntimeException: app1RibbonCommand timed-out and no fallback available.',
      '\tat com.netflix.hystrix.AbstractCommand$16.call(AbstractCommand.java:807)',
    ]
    expect(await diagnose(timedOut)).toEqual({ primary: ['TD-13', 'probable_cause'], branches: ['TD-13'] })
  })

  it('leaves an open Hystrix circuit and a rejected fallback undetermined: neither names a cause', async () => {
    // https://github.com/Netflix/Hystrix/issues/1977 (short-circuited), and
    // https://github.com/Netflix/Hystrix/issues/1357 (REJECTED_SEMAPHORE_FALLBACK: the fallback's
    // own limit, which any burst of failures fills, whatever they were).
    for (const line of [
      'com.netflix.hystrix.exception.HystrixRuntimeException: ProductCommand short-circuited and fallback failed.',
      'trace=com.netflix.hystrix.exception.HystrixRuntimeException: testCommand fallback execution rejected.',
    ]) {
      expect(
        (
          await diagnose([
            line,
            '\tat com.netflix.hystrix.AbstractCommand.getFallbackOrThrowException(AbstractCommand.java:875)',
          ])
        ).primary[0],
      ).toBe('TD-08')
    }
  })

  it('reads Atomikos’ JDBC pool with no free connection as an exhausted pool (TD-09)', async () => {
    // https://github.com/obiba/opal/issues/2861 (test/corpus/excerpts/atomikos.json); the message
    // AbstractDataSourceBean throws on PoolExhaustedException.
    const atomikos = [
      '\t... 65 common frames omitted',
      "Caused by: com.atomikos.jdbc.AtomikosSQLException: Connection pool exhausted - try increasing 'maxPoolSize' and/or 'borrowConnectionTimeout' on the DataSourceBean.",
    ]
    expect(await diagnose(atomikos)).toEqual({ primary: ['TD-09', 'probable_cause'], branches: ['TD-09'] })
    // Later releases moved the class to `com.atomikos.jdbc.internal.`, same message.
    const internal = atomikos.map((line) => line.replace('com.atomikos.jdbc.', 'com.atomikos.jdbc.internal.'))
    expect((await diagnose(internal)).primary).toEqual(['TD-09', 'probable_cause'])
  })

  it('reads the ClickHouse driver as a database component: its lost or timed-out connections are the database’s (TD-18)', async () => {
    // https://github.com/ClickHouse/clickhouse-java/issues/531 (test/corpus/excerpts/clickhouse.json)
    const clickhouse = [
      'ru.yandex.clickhouse.except.ClickHouseUnknownException: ClickHouse exception, code: 1002, host: xxx.xxx.xxx.xxx, port: 8123; xxx.xxx.xxx.xxx:8123 failed to respond',
      '\tat ru.yandex.clickhouse.except.ClickHouseExceptionSpecifier.getException(ClickHouseExceptionSpecifier.java:91)',
      'Caused by: org.apache.http.NoHttpResponseException: xxx.xxx.xxx.xxx:8123 failed to respond',
      '\tat org.apache.http.impl.conn.DefaultHttpResponseParser.parseHead(DefaultHttpResponseParser.java:143)',
    ]
    expect(await diagnose(clickhouse)).toEqual({ primary: ['TD-18', 'probable_cause'], branches: ['TD-18'] })
    // The same lost response under another HTTP client's caller stays a lost connection, not a database's.
    const other = clickhouse.map((line) =>
      line.replaceAll('ru.yandex.clickhouse.except.ClickHouse', 'com.example.Client'),
    )
    expect((await diagnose(other)).primary[0]).not.toBe('TD-18')
  })
})

describe('wordings of the catalogue for states no exception carries (kinds the corpus showed)', () => {
  it('reads HikariCP’s statistics at a time-out with busy connections and waiters as an exhausted pool (TD-09)', async () => {
    // https://github.com/brettwooldridge/HikariCP/issues/1313
    expect(
      await diagnose([
        'MasterDB - Timeout failure stats (total=45, active=45, idle=0, waiting=16)',
        'MasterDB - Timeout failure stats (total=38, active=38, idle=0, waiting=36)',
      ]),
    ).toEqual({ primary: ['TD-09', 'confirmed_cause'], branches: ['TD-09'] })
    // No connection at all is a pool that cannot open one (the database), not one used up.
    // https://github.com/brettwooldridge/HikariCP/issues/1911
    expect(
      (
        await diagnose([
          '2022-03-04 02:04:56,582 [http-nio-5370-exec-9] DEBUG hikari.pool.HikariPool[421] [] - HikariPool-1 - Timeout failure stats (total=0, active=0, idle=0, waiting=9)',
        ])
      ).branches,
    ).not.toContain('TD-09')
  })

  it('reads the Kafka client’s broker that cannot be reached as a dependency refusing connections (TD-01)', async () => {
    // https://github.com/Yolean/kubernetes-kafka/issues/229
    const line = (time: string, node: number, host: string) =>
      `[2018-12-02 13:51:${time}] WARN [Producer clientId=console-producer] Connection to node ${node} (${host}:9092) could not be established. Broker may not be available. (org.apache.kafka.clients.NetworkClient)`
    expect(await diagnose([line('02,310', 1, 'kafka-1.broker.kafka.svc.cluster.local/10.36.1.22')])).toEqual({
      primary: ['TD-01', 'probable_cause'],
      branches: ['TD-01'],
    })
    expect(
      (
        await diagnose([
          line('02,310', 1, 'kafka-1.broker.kafka.svc.cluster.local/10.36.1.22'),
          line('05,384', 1, 'kafka-1.broker.kafka.svc.cluster.local/10.36.1.22'),
        ])
      ).primary,
    ).toEqual(['TD-01', 'confirmed_cause'])
  })

  it('reads the Kafka client’s connection set-up time-out as a dependency that does not answer in time (TD-13)', async () => {
    // NetworkClient.handleTimedOutConnections closes a connection whose TCP set-up outlived
    // socket.connection.setup.timeout.ms (KIP-601): "Disconnecting from node {} due to socket
    // connection setup timeout. The timeout value is {} ms."
    // (clients/src/main/java/org/apache/kafka/clients/NetworkClient.java, https://github.com/apache/kafka)
    const line = (time: string) =>
      `2024-11-06 08:41:${time} [kafka-1] INFO  o.apache.kafka.clients.NetworkClient - [Consumer clientId=consumer-orders-1, groupId=orders] Disconnecting from node -1 due to socket connection setup timeout. The timeout value is 26458 ms.`
    expect(await diagnose([line('23,242')])).toEqual({ primary: ['TD-13', 'probable_cause'], branches: ['TD-13'] })
    // The setting's name in the client's configuration listing is no time-out.
    expect(
      (
        await diagnose([
          '2024-11-06 08:40:57,101 [main] INFO  o.a.k.clients.consumer.ConsumerConfig - ConsumerConfig values: ',
          '\tsocket.connection.setup.timeout.max.ms = 30000',
          '\tsocket.connection.setup.timeout.ms = 10000',
        ])
      ).branches,
    ).not.toContain('TD-13')
  })

  it('reads Open Liberty’s CWWKO0221E, an endpoint that could not bind its port, as a start-up failure (TD-05)', async () => {
    // https://github.com/OpenLiberty/open-liberty/issues/32755
    expect(
      await diagnose([
        '[8/25/25, 12:02:58:728 PDT] 00000032 io.openliberty.netty.internal.tcp.TCPUtils                   E CWWKO0221E: TCP Channel defaultHttpEndpoint initialization did not succeed.  The socket bind did not succeed for host 0.0.0.0 and port 8010.  The port might already be in use.  Exception Message: Address already in use',
      ]),
    ).toEqual({ primary: ['TD-05', 'probable_cause'], branches: ['TD-05'] })
  })

  it('reads a listener that cannot bind an address the host does not have as a start-up failure (TD-05), not an OS limit', async () => {
    expect(
      await diagnose([
        'Exception in thread "main" java.lang.RuntimeException: java.net.BindException: Cannot assign requested address',
        '\tat org.example.http.Server.start(Server.java:41)',
        'Caused by: java.net.BindException: Cannot assign requested address',
        '\tat sun.nio.ch.Net.bind0(Native Method)',
        '\tat sun.nio.ch.ServerSocketChannelImpl.bind(ServerSocketChannelImpl.java:252)',
        '\t... 1 more',
      ]),
    ).toEqual({ primary: ['TD-05', 'probable_cause'], branches: ['TD-05'] })
    // The same errno on an outgoing connection: the local ports are used up (TD-06, an OS limit to confirm on the host).
    expect(
      (
        await diagnose([
          'java.net.BindException: Cannot assign requested address',
          '\tat sun.nio.ch.Net.connect0(Native Method)',
          '\tat sun.nio.ch.SocketChannelImpl.connect(SocketChannelImpl.java:750)',
        ])
      ).primary,
    ).toEqual(['TD-06', 'undetermined'])
  })

  it('reads a listener whose bind failure is wrapped and its cause cut off as a start-up failure (TD-05)', async () => {
    // https://github.com/linagora/james-project/pull/2678: Jetty's ServerConnector wraps the
    // BindException in `IOException: Failed to bind to …`, and the cause is out of the window.
    const jetty = [
      '[cce490f7c8cf3be8b641cb5ee87494af1c814677] java.io.IOException: Failed to bind to /0.0.0.0:38537',
      '[cce490f7c8cf3be8b641cb5ee87494af1c814677] \tat org.eclipse.jetty.server.ServerConnector.openAcceptChannel(ServerConnector.java:346)',
      '[cce490f7c8cf3be8b641cb5ee87494af1c814677] \tat org.eclipse.jetty.server.ServerConnector.open(ServerConnector.java:308)',
    ]
    expect(await diagnose(jetty)).toEqual({ primary: ['TD-05', 'probable_cause'], branches: ['TD-05'] })
    // Another server words it the same (HBase's NettyRpcServer): the wording, not the product, decides.
    expect(
      (
        await diagnose([
          'ERROR o.a.h.h.ipc.NettyRpcServer - java.io.IOException: Failed to bind to 0.0.0.0/0.0.0.0:16020',
        ])
      ).primary,
    ).toEqual(['TD-05', 'probable_cause'])
  })

  it('reads a Resilience4j bulkhead that refuses calls as a saturated pool (TD-10)', async () => {
    // https://github.com/resilience4j/resilience4j/issues/791
    const full =
      "io.github.resilience4j.bulkhead.BulkheadFullException: Bulkhead 'dp-ingestion-api' is full and does not permit further calls"
    expect(await diagnose([full])).toEqual({ primary: ['TD-10', 'probable_cause'], branches: ['TD-10'] })
    expect((await diagnose([full, full])).primary).toEqual(['TD-10', 'confirmed_cause'])
  })
})

describe('refusals a client logged as handled (TD 2.7.0)', () => {
  // https://github.com/apache/inlong/issues/4483: Kafka's client in a unit test, no broker, at DEBUG.
  const debugRefused = [
    '2022-06-02 00:56:32.961 -DEBUG  [           main] o.a.k.c.n.Selector             : [Consumer clientId=consumer-null-1, groupId=null] Connection with /127.0.0.1 disconnected',
    'java.net.ConnectException: Connection refused',
    '\tat sun.nio.ch.SocketChannelImpl.checkConnect(Native Method) ~[?:1.8.0_292]',
    '\tat sun.nio.ch.SocketChannelImpl.finishConnect(SocketChannelImpl.java:716) ~[?:1.8.0_292]',
    '\tat org.apache.kafka.common.network.PlaintextTransportLayer.finishConnect(PlaintextTransportLayer.java:50) ~[kafka-clients-3.0.0.jar:?]',
  ]

  it('is no upstream refusal (TD-01) when every refusal the reader found was handled, though the wording matches', async () => {
    expect(await diagnose(debugRefused)).toEqual({ primary: ['TD-08', 'undetermined'], branches: ['TD-08'] })
    expect(await diagnose([...debugRefused, ...debugRefused])).toEqual({
      primary: ['TD-08', 'undetermined'],
      branches: ['TD-08'],
    })
  })

  it('is one when a refusal that counts is logged beside the handled ones', async () => {
    const result = await diagnose([
      ...debugRefused,
      '2022-06-02 00:57:02.001 ERROR  [           main] c.e.Loader                     : load failed: java.net.ConnectException: Connection refused',
    ])
    expect(result.primary[0]).toBe('TD-01')
    expect(result.branches).toEqual(['TD-01'])
  })
})

describe('custom rules on exception classes and meanings (docs/api.md)', () => {
  const body = (extra: Record<string, unknown>) => ({
    branch: 'CX-01',
    ruleName: 'LedgerClasspath',
    category: 'application_lifecycle',
    targetSource: 'local_file',
    pattern: 'LedgerModuleLoadFailed',
    assessment: 'The ledger module could not link its classes.',
    classification: 'confirmed_cause',
    confidence: 'high',
    priority: 95,
    recommendedActions: ['Check the ledger module libraries.'],
    ...extra,
  })
  const linkage = [
    'java.lang.NoSuchMethodError: org.apache.commons.lang3.StringUtils.isAnyBlank([Ljava/lang/CharSequence;)Z',
    '\tat com.example.ledger.Export.render(Export.java:212)',
  ]

  it('match an exception of the class or a subclass, and are confirmed when two records show it', async () => {
    const custom = offlineCustomRule(
      body({ exceptionClass: 'java.lang.IncompatibleClassChangeError' }),
      11,
      'test',
      createdAt,
    )
    expect(custom.exceptionClass).toEqual(['java.lang.IncompatibleClassChangeError'])
    const withCustom = new DiagnosisEngine(builtins, versions, [...seed, custom])
    const once = await withCustom.diagnose(withLog(linkage))
    expect([once.primary.rule.branch, once.primary.classification]).toEqual(['CX-01', 'probable_cause'])
    const twice = await withCustom.diagnose(withLog([...linkage, ...linkage]))
    expect([twice.primary.rule.branch, twice.primary.classification]).toEqual(['CX-01', 'confirmed_cause'])
    // Not a NoClassDefFoundError: a LinkageError, but no IncompatibleClassChangeError.
    const other = await withCustom.diagnose(withLog(['java.lang.NoClassDefFoundError: com/example/Ledger']))
    expect(other.matches.map((m) => m.rule.branch)).toEqual(['TD-15'])
  })

  it('match a meaning of the taxonomy, and a rule body without either stays valid', async () => {
    const custom = offlineCustomRule(body({ exceptionMeaning: ['class-linkage'] }), 11, 'test', createdAt)
    const withCustom = new DiagnosisEngine(builtins, versions, [...seed, custom])
    expect((await withCustom.diagnose(withLog(linkage))).primary.rule.branch).toBe('CX-01')
    const plain = offlineCustomRule(body({}), 12, 'test', createdAt)
    expect([plain.exceptionClass, plain.exceptionMeaning]).toEqual([null, null])
  })

  it('are stored with their lists and refused, naming it, for a meaning the taxonomy does not define', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'diag-exception-rules-')), 'rules.db'))
    const service = new RulesService(new RulesRepository(db), new PatternSafety())
    const stored = await service.register(
      body({
        exceptionClass: ['java.lang.LinkageError', 'java.lang.ClassNotFoundException'],
        exceptionMeaning: 'class-linkage',
      }) as never,
      'ops',
    )
    expect([stored.exceptionClass, stored.exceptionMeaning]).toEqual([
      ['java.lang.LinkageError', 'java.lang.ClassNotFoundException'],
      ['class-linkage'],
    ])
    expect(new RulesRepository(db).all().map((r) => [r.exceptionClass, r.exceptionMeaning])).toEqual([
      [['java.lang.LinkageError', 'java.lang.ClassNotFoundException'], ['class-linkage']],
    ])
    const refused = service.register(
      body({ branch: 'CX-02', ruleName: 'Other', pattern: 'OtherFailure', exceptionMeaning: 'class-linkag' }) as never,
      'ops',
    )
    await expect(refused).rejects.toBeInstanceOf(RuleRejectedError)
    await expect(refused).rejects.toMatchObject({
      reason: 'invalid_rule',
      details: [{ path: '/exceptionMeaning', message: 'class-linkag is not a meaning of the taxonomy' }],
    })
    db.close()
  })
})

describe('kinds the families retired in the fourth round showed (taxonomy 1.8.0, the reader)', () => {
  it('reads Cassandra’s own Thrift client and the Spark Cassandra Connector as database components: a refusal under them is the database’s (TD-18)', async () => {
    // https://github.com/TargetHolding/pyspark-cassandra/issues/62 (test/corpus/excerpts/thrift.json):
    // the refusal is a Cassandra node's, named by the frames of Cassandra's Thrift client
    // (org.apache.cassandra.thrift) and of the connector; TD-01 was confirmed there, wrongly.
    const cassandra = [
      'Caused by: org.apache.thrift.transport.TTransportException: java.net.ConnectException: Connection refused',
      '\tat org.apache.thrift.transport.TSocket.open(TSocket.java:185)',
      '\tat org.apache.thrift.transport.TFramedTransport.open(TFramedTransport.java:81)',
      '\tat org.apache.cassandra.thrift.TFramedTransportFactory.openTransport(TFramedTransportFactory.java:41)',
      '\tat com.datastax.spark.connector.cql.DefaultConnectionFactory$.createThriftClient(CassandraConnectionFactory.scala:41)',
      '\t... 25 more',
      'Caused by: java.net.ConnectException: Connection refused',
      '\tat java.net.PlainSocketImpl.socketConnect(Native Method)',
      '\tat org.apache.thrift.transport.TSocket.open(TSocket.java:180)',
      '\t... 29 more',
    ]
    expect((await diagnose(cassandra)).primary).toEqual(['TD-18', 'probable_cause'])
    // The same Thrift refusal under another service's client stays an upstream refusal.
    const other = cassandra.filter((line) => !line.includes('cassandra') && !line.includes('datastax'))
    expect((await diagnose(other)).primary[0]).toBe('TD-01')
  })
  it('reads spymemcached’s operation time-outs, unchecked and checked, as a time-out of the cache it calls (TD-13)', async () => {
    // https://github.com/ragnor/simple-spring-memcached/issues/76 and
    // https://github.com/playframework/play2-memcached/issues/28 (test/corpus/excerpts/memcached.json)
    const unchecked = [
      'net.spy.memcached.OperationTimeoutException: Timeout waiting for value: waited 5,000 ms. Node status: Connection Status { /10.1.0.3:11211 active: false, authed: true, last read: 750 ms ago }',
    ]
    expect((await diagnose(unchecked)).primary).toEqual(['TD-13', 'probable_cause'])
    const checked = [
      '[error] m.plugin - An error has occured while getting the value from memcached',
      'net.spy.memcached.internal.CheckedOperationTimeoutException: Timed out waiting for operation - failing node: /127.0.0.1:11211',
      '    at net.spy.memcached.internal.OperationFuture.get(OperationFuture.java:160) ~[spymemcached-2.9.0.jar:2.9.0]',
    ]
    expect((await diagnose(checked)).primary).toEqual(['TD-13', 'probable_cause'])
  })
  it('reads IBM MQ’s MQRC_HOST_NOT_AVAILABLE (2538) as a queue manager’s host that could not be reached (TD-01)', async () => {
    // https://github.com/ibm-messaging/mq-container/issues/391 (test/corpus/excerpts/ibm-mq.json);
    // IBM's reason code: the client could not allocate a conversation to the queue manager's host.
    const mq = [
      "com.ibm.mq.MQException: JMSCMQ0001: IBM MQ call failed with compcode '2' ('MQCC_FAILED') reason '2538' ('MQRC_HOST_NOT_AVAILABLE')",
    ]
    expect((await diagnose(mq)).primary).toEqual(['TD-01', 'probable_cause'])
    // Another reason code of the same call is no refusal: 2033, an empty queue.
    const empty = [mq[0]?.replace("'2538' ('MQRC_HOST_NOT_AVAILABLE')", "'2033' ('MQRC_NO_MSG_AVAILABLE')") ?? '']
    expect((await diagnose(empty)).primary[0]).toBe('TD-08')
  })
  it('reads Spring’s CannotCreateTransactionException as the database’s only when its message names a database resource', async () => {
    // https://github.com/ibm-messaging/mq-jms-spring/issues/105 (test/corpus/excerpts/ibm-mq.json):
    // every transaction manager throws it; JmsTransactionManager's words name a JMS transaction,
    // and the queue manager's failure below it names no cause the catalogue knows.
    const jms = [
      'Exception in thread "main" org.springframework.transaction.CannotCreateTransactionException: Could not create JMS transaction',
      '\tat org.springframework.jms.connection.JmsTransactionManager.doBegin(JmsTransactionManager.java:255)',
      "Caused by: com.ibm.msg.client.jakarta.jms.DetailedJMSException: JMSWMQ0018: Failed to connect to queue manager 'WMQS102' with connection mode 'Client' and host name 'Client'.",
      '\tat com.ibm.msg.client.jakarta.wmq.common.internal.Reason.reasonToException(Reason.java:595)',
    ]
    expect((await diagnose(jms)).primary[0]).toBe('TD-08')
    // DataSourceTransactionManager's words, its cause cut off, stay the database's.
    const jdbc = [
      'org.springframework.transaction.CannotCreateTransactionException: Could not open JDBC Connection for transaction',
      '\tat org.springframework.jdbc.datasource.DataSourceTransactionManager.doBegin(DataSourceTransactionManager.java:309)',
    ]
    expect((await diagnose(jdbc)).primary).toEqual(['TD-18', 'probable_cause'])
  })
  it('reads Paho’s reason code 32000 (REASON_CODE_CLIENT_TIMEOUT), by its code or its published words, as a broker that stopped answering (TD-13)', async () => {
    // https://github.com/eclipse-paho/paho.mqtt.java/issues/785 (test/corpus/excerpts/paho.json)
    const words = [
      '2020-06-06T07:39:07.227244435Z org.eclipse.paho.client.mqttv3.MqttException: Timed out waiting for a response from the server',
      '2020-06-06T07:39:07.227248742Z  at org.eclipse.paho.client.mqttv3.internal.ExceptionHelper.createMqttException(ExceptionHelper.java:31) ~[org.eclipse.paho.client.mqttv3-1.2.2.jar!/:na]',
    ]
    expect((await diagnose(words)).primary).toEqual(['TD-13', 'probable_cause'])
    // MqttException's toString() appends the code, whatever the locale's words.
    const code = [
      'org.eclipse.paho.client.mqttv3.MqttException: Tiempo de espera excedido al esperar una respuesta del servidor (32000)',
    ]
    expect((await diagnose(code)).primary).toEqual(['TD-13', 'probable_cause'])
    // Another reason code is no time-out: 32109, the connection lost (an orderly stop among others).
    expect((await diagnose(['org.eclipse.paho.client.mqttv3.MqttException: Connection lost (32109)'])).primary[0]).toBe(
      'TD-08',
    )
  })
  it('reads Kafka Connect’s own ConnectException as a Connect failure, not the JDK’s refused connection (TD-01)', async () => {
    // https://github.com/vdesabou/kafka-docker-playground/issues/1373 (test/corpus/excerpts/ibm-mq.json):
    // org.apache.kafka.connect.errors.ConnectException is Kafka Connect's base exception, a
    // namesake of java.net.ConnectException, not a subclass.
    const connect = [
      "org.apache.kafka.connect.errors.ConnectException: Failed on attempt 1 of 2147483647 to Connecting with connection 1: Failed to start new JMS session connection 1: JMSWMQ0018: Failed to connect to queue manager 'QM1' with connection mode 'Client' and host name 'ibmmq(1414)'.",
      '        at io.confluent.connect.utils.retry.RetryPolicy.callWith(RetryPolicy.java:423)',
    ]
    expect((await diagnose(connect)).primary[0]).toBe('TD-08')
  })
})

describe('kinds the families retired in the fifth round showed (taxonomy 1.9.0)', () => {
  it('reads the PostgreSQL driver’s failed connection attempt, in English and in its published Chinese translation, as the database unreachable (TD-18)', async () => {
    // https://github.com/apache/flink-cdc/issues/788 (test/corpus/excerpts/debezium.json): the
    // driver's "The connection attempt failed." (ConnectionFactoryImpl.java:297), printed in the
    // JVM's locale from pgjdbc's zh_CN.po, with no SQLSTATE and no cause shown.
    const zh = [
      'Caused by: org.postgresql.util.PSQLException: 尝试连线已失败。',
      '\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:297) ~[flink-sql-connector-postgres-cdc-2.1.1.jar:2.1.1]',
      '\tat org.postgresql.core.ConnectionFactory.openConnection(ConnectionFactory.java:49) ~[flink-sql-connector-postgres-cdc-2.1.1.jar:2.1.1]',
    ]
    expect((await diagnose(zh)).primary).toEqual(['TD-18', 'probable_cause'])
    const en = [zh[0]?.replace('尝试连线已失败。', 'The connection attempt failed.') ?? '', ...zh.slice(1)]
    expect((await diagnose(en)).primary).toEqual(['TD-18', 'probable_cause'])
    // Another PSQLException message of the same driver names no unreachable database.
    const other = [
      zh[0]?.replace('尝试连线已失败。', 'The column index is out of range: 3, number of columns: 2.') ?? '',
    ]
    expect((await diagnose(other)).primary[0]).toBe('TD-08')
  })
  it('reads MySQL Connector/J’s "driver has not received any packets" line, printed without its class, as the database unreachable (TD-18)', async () => {
    // https://github.com/GoogleCloudPlatform/DataflowTemplates/issues/148 (test/corpus/excerpts/debezium.json):
    // the second line of a CommunicationsException's message, the first cut off by the logger.
    const bare = [
      "ERROR embedded.EmbeddedEngine: Unable to initialize and start connector's task class 'io.debezium.connector.mysql.MySqlConnectorTask' with config:",
      '',
      'The last packet sent successfully to the server was 0 milliseconds ago. The driver has not received any packets from the server.',
      '        at io.debezium.connector.mysql.MySqlJdbcContext.querySystemVariables(MySqlJdbcContext.java:299)',
    ]
    expect((await diagnose(bare)).primary).toEqual(['TD-18', 'probable_cause'])
    // The same words in a sentence about them are no driver message.
    expect((await diagnose(['The last packet sent successfully to the server was a long time ago.'])).primary[0]).toBe(
      'TD-08',
    )
  })
  it('reads the JDK’s Windows message of a refused connect, printed without its class, as a refused upstream (TD-01, probable)', async () => {
    // https://github.com/xuxueli/xxl-job/issues/1675 (test/corpus/excerpts/xxl-job.json): the
    // executor logs only getMessage() of java.net.ConnectException.
    const bare = [
      '11:20:33.845 logback [xxl-job, executor ExecutorRegistryThread] ERROR c.x.job.core.util.XxlJobRemotingUtil - Connection refused: connect',
    ]
    expect((await diagnose(bare)).primary).toEqual(['TD-01', 'probable_cause'])
    // Inferred from its message alone, it never corroborates itself: twice is still probable.
    expect((await diagnose([...bare, ...bare])).primary).toEqual(['TD-01', 'probable_cause'])
    // Words around it are no bare message.
    expect(
      (await diagnose(['INFO registry fail, msg=remoting error(Connection refused: connect), content=null']))
        .primary[0],
    ).toBe('TD-08')
  })
})

describe('kinds the families retired in the seventh round showed (taxonomy 1.10.0)', () => {
  it('reads the WebSocket API’s DeploymentException as no start-up failure: it is also a client’s failed connect', async () => {
    // https://github.com/eclipse-ee4j/tyrus/issues/618 (test/corpus/excerpts/tyrus.json). The
    // API's javadoc: "a failure either to publish an endpoint on its server, or a failure to
    // connect a client to its server"; a namesake of GlassFish's deployment failure.
    const tyrus = [
      'javax.websocket.DeploymentException: Connection failed.',
      '\tat org.glassfish.tyrus.container.jdk.client.JdkClientContainer$1.call(JdkClientContainer.java:200) ~[tyrus-standalone-client-jdk-1.13.1.jar:na]',
      '\tat org.glassfish.tyrus.client.ClientManager$3$1.run(ClientManager.java:668) ~[tyrus-standalone-client-jdk-1.13.1.jar:na]',
    ]
    expect((await diagnose(tyrus)).primary[0]).toBe('TD-08')
    const jakarta = tyrus.map((line) => line.replace('javax.websocket.', 'jakarta.websocket.'))
    expect((await diagnose(jakarta)).primary[0]).toBe('TD-08')
    // GlassFish's own DeploymentException is still a deployment that failed.
    const glassfish = ['org.glassfish.deployment.common.DeploymentException: Error during deployment of orders']
    expect((await diagnose(glassfish)).primary[0]).toBe('TD-05')
  })
  it('reads ZkClient’s ZkTimeoutException, I0Itec’s and Helix’s copy, as a time-out reaching ZooKeeper (TD-13)', async () => {
    // https://github.com/apache/pinot/issues/10378 (test/corpus/excerpts/helix.json): the class
    // ZkClient.connect throws when ZooKeeper did not answer within its connection time-out.
    const helix = [
      '2023/03/03 23:53:50.222 ERROR [StartServiceManagerCommand] [main] Failed to start a Pinot [CONTROLLER] at 75.106 since launch',
      'org.apache.helix.zookeeper.zkclient.exception.ZkTimeoutException: Unable to connect to zookeeper server within timeout: 60000',
    ]
    expect((await diagnose(helix)).primary).toEqual(['TD-13', 'probable_cause'])
    const i0itec = [helix[1]?.replace('org.apache.helix.zookeeper.zkclient.', 'org.I0Itec.zkclient.') ?? '']
    expect((await diagnose(i0itec)).primary).toEqual(['TD-13', 'probable_cause'])
    // Another ZkClient exception names no time-out.
    const other = [
      'org.I0Itec.zkclient.exception.ZkNoNodeException: org.apache.zookeeper.KeeperException$NoNodeException',
    ]
    expect((await diagnose(other)).primary[0]).toBe('TD-08')
  })
  it('reads a failure logged at Apache Geode’s lower-case `fine` as handled: no refusal, no confirmed DNS failure', async () => {
    // Geode's layout (https://github.com/apache/geode, geode-log4j/src/main/resources/log4j2.xml);
    // `fine` is java.util.logging's FINE, below INFO: a pool that goes on discovering servers.
    const geode = (level: string, failure: string) => [
      `[${level} 2017/05/24 14:52:07.080 PDT <poolTimer-gemfire-pool-3> tid=0x6c] Error attempting to connect to 9ade546c2288:40404: `,
      failure,
      '\tat com.gemstone.gemfire.cache.client.internal.ConnectionImpl.connect(ConnectionImpl.java:98)',
    ]
    const refused = 'java.net.ConnectException: Connection refused'
    expect((await diagnose(geode('fine', refused))).primary[0]).toBe('TD-08')
    expect((await diagnose(geode('warn', refused))).primary[0]).toBe('TD-01')
    const unknown = 'java.net.UnknownHostException: 9ade546c2288'
    const twice = (level: string) => [...geode(level, unknown), ...geode(level, unknown)]
    expect((await diagnose(twice('fine'))).primary).toEqual(['TD-17', 'probable_cause'])
    expect((await diagnose(twice('warn'))).primary).toEqual(['TD-17', 'confirmed_cause'])
  })
})

describe('kinds the families retired in the eighth round showed (taxonomy 1.11.0)', () => {
  it('reads Netty’s ProxyConnectException as a proxy that opened no tunnel, never a refusal by the destination (no TD-01)', async () => {
    // https://github.com/line/armeria/issues/3654 (test/corpus/excerpts/armeria.json): a SOCKS4
    // proxy answered REJECTED_OR_FAILED(91). ProxyConnectException extends ConnectException, but
    // Netty's ProxyHandler throws it when the proxy's handshake fails (a status, a time-out, a
    // close), https://netty.io/4.1/api/io/netty/handler/proxy/ProxyConnectException.html.
    const socks = [
      'java.util.concurrent.CompletionException: com.linecorp.armeria.client.UnprocessedRequestException: io.netty.handler.proxy.ProxyConnectException: socks4, none, /127.0.0.1:33502 => 127.0.0.1/127.0.0.1:37315, status: REJECTED_OR_FAILED(91)',
      '\tat java.base/java.util.concurrent.CompletableFuture.reportJoin(Unknown Source)',
      'Caused by: io.netty.handler.proxy.ProxyConnectException: socks4, none, /127.0.0.1:33502 => 127.0.0.1/127.0.0.1:37315, status: REJECTED_OR_FAILED(91)',
      '\tat io.netty.handler.proxy.Socks4ProxyHandler.handleResponse(Socks4ProxyHandler.java:119)',
    ]
    // Two lines of it used to confirm an upstream refusal.
    expect((await diagnose(socks)).primary[0]).toBe('TD-08')
    expect((await diagnose([...socks, ...socks])).primary[0]).toBe('TD-08')
    // HttpProxyHandler's subclass, unlisted, is placed under it by its name.
    const http = [
      'io.netty.handler.proxy.HttpProxyHandler$HttpProxyConnectException: http, none, proxy:3128 => api:443, status: 407 Proxy Authentication Required',
    ]
    expect((await diagnose(http)).primary[0]).toBe('TD-08')
    // The proxy's own port refusing the connect is still a refusal.
    const refused = [
      'io.netty.channel.AbstractChannel$AnnotatedConnectException: Connection refused: proxy/10.0.0.7:1080',
      'Caused by: java.net.ConnectException: Connection refused',
    ]
    expect((await diagnose(refused)).primary[0]).toBe('TD-01')
  })
  it('reads Armeria’s ResponseTimeoutException as a call to a dependency past its time-out (TD-13)', async () => {
    // https://github.com/openzipkin/zipkin/issues/3352 (test/corpus/excerpts/armeria.json): "A
    // TimeoutException raised when a response has not been received from a server within
    // timeout" (https://github.com/line/armeria, ResponseTimeoutException.java); a singleton
    // without a message or stack.
    const zipkin = [
      'com.linecorp.armeria.client.ResponseTimeoutException: null',
      '\tat com.linecorp.armeria.client.ResponseTimeoutException.get(ResponseTimeoutException.java:36) ~[armeria-1.3.0.jar!/:?]',
    ]
    expect((await diagnose(zipkin)).primary).toEqual(['TD-13', 'probable_cause'])
    // Armeria's other time-outs (a server's own request time-out) name no dependency.
    const server = ['com.linecorp.armeria.server.RequestTimeoutException: null']
    expect((await diagnose(server)).primary[0]).toBe('TD-08')
  })
  it('reads a trace printed under a line that carries a database code as the database’s: that line is its wrapper', async () => {
    // https://github.com/dbeaver/dbeaver/issues/18075 (test/corpus/excerpts/jaybird.json): an
    // error tree prints each cause indented under its wrapper, without `Caused by:`; the
    // wrapper's SQLSTATE 08006 (class 08, connection exception) names the database, so the
    // refusal under it is the database unreachable (TD-18), as under a driver's class.
    const tree = [
      'Unable to complete network request to host "127.0.0.1". [SQLState:08006, ISC error code:335544721]',
      '  Connection refused: connect',
      '  Connection refused: connect',
    ]
    expect((await diagnose(tree)).primary).toEqual(['TD-18', 'probable_cause'])
    // The same refusal under a line that names no component is an upstream's.
    const upstream = ['Unable to complete request to pricing:8080', '  Connection refused: connect']
    expect((await diagnose(upstream)).primary[0]).toBe('TD-01')
  })
})

describe('kinds the families retired in the ninth round showed (taxonomy 1.12.0)', () => {
  it('reads a connection reset or a localised read time-out under the ArangoDB Java driver as the database’s (TD-18)', async () => {
    // https://github.com/arangodb/arangodb-java-driver/issues/68 (test/corpus/excerpts/arangodb.json):
    // the driver (com.arangodb, https://github.com/arangodb/arangodb-java-driver) wraps the JDK's
    // reset in its one ArangoDBException; the reset is a lost connection, the driver makes it the database's.
    const reset = [
      'Exception in thread "main" com.arangodb.ArangoDBException: java.net.SocketException: Connection reset',
      '\tat com.arangodb.internal.velocystream.ConnectionSync.write(ConnectionSync.java:111)',
      '\tat com.arangodb.ArangoDB.getVersion(ArangoDB.java:297)',
      'Caused by: java.net.SocketException: Connection reset',
      '\tat java.net.SocketInputStream.read(SocketInputStream.java:209)',
      '\tat com.arangodb.internal.velocystream.Connection.readBytesIntoBuffer(Connection.java:210)',
    ]
    expect((await diagnose(reset)).primary).toEqual(['TD-18', 'probable_cause'])
    // https://github.com/arangodb/arangodb-java-driver/issues/251: glibc's Chinese ETIMEDOUT, a time-out
    // of the database's connection, not a generic call past its time-out (TD-13).
    const chinese = [
      'com.arangodb.ArangoDBException: java.util.concurrent.ExecutionException: com.arangodb.ArangoDBException: java.net.SocketException: 连接超时 (Read failed)',
      '        at com.arangodb.internal.velocystream.internal.ConnectionSync.write(ConnectionSync.java:92) ~[arangodb-java-driver-4.2.2.jar!/:?]',
    ]
    expect((await diagnose(chinese)).primary).toEqual(['TD-18', 'probable_cause'])
    // The same reset under another client's frames stays a lost connection nobody owns.
    const other = reset.map((line) => line.replaceAll('com.arangodb.', 'com.example.'))
    expect((await diagnose(other)).primary[0]).toBe('TD-08')
  })
  it('reads a reset during the Redshift JDBC driver’s TLS handshake as the database unreachable (TD-18)', async () => {
    // https://github.com/dbeaver/dbeaver/issues/34947 (test/corpus/excerpts/redshift.json); the
    // driver's package, com.amazon.redshift (https://github.com/aws/amazon-redshift-jdbc-driver).
    const handshake = [
      'java.net.SocketException: Connection reset',
      '\tat java.base/sun.nio.ch.NioSocketImpl.implRead(Unknown Source)',
      '\tat java.base/sun.security.ssl.SSLSocketImpl.startHandshake(Unknown Source)',
      '\tat com.amazon.redshift.ssl.MakeSSL.convert(MakeSSL.java:36)',
      '\tat com.amazon.redshift.core.v3.ConnectionFactoryImpl.enableSSL(ConnectionFactoryImpl.java:606)',
    ]
    expect((await diagnose(handshake)).primary).toEqual(['TD-18', 'probable_cause'])
  })
  it('reads a refusal under the Kudu Java client, the OrientDB client and the Gremlin driver as the database’s, not an upstream’s', async () => {
    // https://github.com/italia/daf/issues/158 (test/corpus/excerpts/kudu.json): a Kudu master refusing,
    // under the client's frames (org.apache.kudu.client, with its shaded Netty 3; https://github.com/apache/kudu).
    const kudu = [
      '017-11-09 16:22:42.884 [New I/O boss #18] ERROR org.apache.kudu.client.TabletClient.exceptionCaught(723) - [Peer master-127.0.0.1:64030] Unexpected exception from downstream on [id: 0x3de71906]',
      'java.net.ConnectException: Connection refused: /127.0.0.1:64030',
      '\tat sun.nio.ch.SocketChannelImpl.checkConnect(Native Method)',
      '\tat org.apache.kudu.client.shaded.org.jboss.netty.channel.socket.nio.NioClientBoss.connect(NioClientBoss.java:152)',
    ]
    expect((await diagnose(kudu)).primary).toEqual(['TD-18', 'probable_cause'])
    // The same refusal under the OrientDB remote client (com.orientechnologies.orient.client,
    // https://github.com/orientechnologies/orientdb) and the TinkerPop Gremlin driver
    // (org.apache.tinkerpop.gremlin.driver, https://github.com/apache/tinkerpop).
    for (const frame of [
      'com.orientechnologies.orient.client.remote.OStorageRemote.openRemoteDatabase(OStorageRemote.java:1906)',
      'com.orientechnologies.orient.jdbc.OrientJdbcConnection.<init>(OrientJdbcConnection.java:64)',
      'org.apache.tinkerpop.gremlin.driver.ConnectionPool.<init>(ConnectionPool.java:93)',
    ]) {
      const refused = [
        'java.net.ConnectException: Connection refused',
        '\tat java.net.PlainSocketImpl.socketConnect(Native Method)',
        `\tat ${frame}`,
      ]
      expect((await diagnose(refused)).primary, frame).toEqual(['TD-18', 'probable_cause'])
    }
    // Under a service's own frames it is still an upstream refusing (TD-01).
    const upstream = kudu.map((line) => line.replaceAll('org.apache.kudu.client.', 'com.example.'))
    expect((await diagnose(upstream)).primary[0]).toBe('TD-01')
  })
})

describe('kinds the families retired in the tenth round showed (taxonomy 1.13.0, TD 2.8.0)', () => {
  it('reads a ConnectException whose message is a TLS alert the peer sent as no refusal (no TD-01)', async () => {
    // https://github.com/AsyncHttpClient/async-http-client/issues/1252 (test/corpus/excerpts/async-http-client.json):
    // AsyncHttpClient wraps any failure of its connect phase, the TLS handshake included, in
    // `new ConnectException(cause.getMessage())` (NettyConnectListener.onFailure,
    // https://github.com/AsyncHttpClient/async-http-client). The JDK words a fatal alert it
    // received as `Received fatal alert: <description>` (sun/security/ssl/Alert.java,
    // https://github.com/openjdk/jdk): an alert comes over a connection that was made.
    const alertCarried = [
      'Exception in thread "main" java.util.concurrent.ExecutionException: java.net.ConnectException: Received fatal alert: handshake_failure',
      '\tat org.asynchttpclient.netty.NettyResponseFuture.abort(NettyResponseFuture.java:239)',
      '\tat org.asynchttpclient.netty.channel.NettyConnectListener.onFailure(NettyConnectListener.java:162)',
      '\tat io.netty.handler.ssl.SslHandler.notifyHandshakeFailure(SslHandler.java:1235)',
    ]
    expect((await diagnose(alertCarried)).primary[0]).toBe('TD-08')
    expect((await diagnose([...alertCarried, ...alertCarried])).primary[0]).toBe('TD-08')
    // The same wrapper over a refusal is still one (TD-01).
    const refused = alertCarried.map((line) =>
      line.replace('Received fatal alert: handshake_failure', 'Connection refused: api.example.com/10.0.0.7:443'),
    )
    expect((await diagnose(refused)).primary[0]).toBe('TD-01')
    // The TLS stack's own class keeps its meaning: a certificate the peer did not accept.
    const trust = ['javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_unknown']
    expect((await diagnose(trust)).primary[0]).toBe('TD-04')
  })
  it('reads Elasticsearch’s bootstrap check of a kernel or process limit set too low as an OS limit (TD-06)', async () => {
    // https://github.com/SonarSource/docker-sonarqube/issues/661 (test/corpus/excerpts/sonarqube.json);
    // the checks' messages are BootstrapChecks.java's (https://github.com/elastic/elasticsearch),
    // https://elastic.co/guide/en/elasticsearch/reference/current/_maximum_map_count_check.html.
    const mapCount = [
      'sonarqube    | 2023.11.29 08:13:32 ERROR es[][o.e.b.Elasticsearch] node validation exception',
      'sonarqube    | [1] bootstrap checks failed. You must address the points described in the following [1] lines before starting Elasticsearch. For more information see [https://www.elastic.co/guide/en/elasticsearch/reference/8.11/bootstrap-checks.html]',
      'sonarqube    | bootstrap check failure [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]; for more information see [https://www.elastic.co/guide/en/elasticsearch/reference/8.11/_maximum_map_count_check.html]',
      'sonarqube    | ERROR: Elasticsearch did not exit normally - check the logs at /opt/sonarqube/logs/sonarqube.log',
    ]
    expect((await diagnose(mapCount)).primary).toEqual(['TD-06', 'undetermined'])
    for (const limit of [
      'max file descriptors [4096] for elasticsearch process is too low, increase to at least [65535]',
      'max number of threads [1024] for user [elasticsearch] is too low, increase to at least [4096]',
      'max size virtual memory [4294967296] for user [elasticsearch] is too low, increase to [unlimited]',
      'max file size [1048576] for user [elasticsearch] is too low, increase to [unlimited]',
    ]) {
      expect(
        (await diagnose([`[2019-01-15T13:49:07,336][WARN ][o.e.b.BootstrapChecks] [node-1] ${limit}`])).primary,
        limit,
      ).toEqual(['TD-06', 'undetermined'])
    }
    // A bootstrap check that is no OS limit names nothing the catalogue knows.
    const heap = [
      '[2019-01-15T13:49:07,336][WARN ][o.e.b.BootstrapChecks] [node-1] initial heap size [268435456] not equal to maximum heap size [1073741824]; this can cause resize pauses',
    ]
    expect((await diagnose(heap)).primary[0]).toBe('TD-08')
  })
})

describe('kinds the families retired in the eleventh round showed (taxonomy 1.14.0)', () => {
  it('confirms no certificate failure from an SSLHandshakeException whose message names none', async () => {
    // https://github.com/spring-cloud/spring-cloud-vault/issues/405 (test/corpus/excerpts/spring-vault.json):
    // the JDK throws SSLHandshakeException for every fatal alert of the handshake (`handshakeOnly`
    // in sun/security/ssl/Alert.java, https://github.com/openjdk/jdk): handshake_failure,
    // protocol_version, unsupported_extension … as well as the certificate ones. Here a TLS 1.3
    // extension the JDK refused, an unsupported_extension, quoted twice: no certificate failed.
    const extension = 'extension (5) should not be presented in certificate_request'
    const vault = [
      `2020-05-20 10:07:30.051  INFO 93020 --- [  restartedMain] o.s.v.c.e.LeaseAwareVaultPropertySource  : Vault location [secret/application/dev] not resolvable: Cannot login using org.springframework.web.client.ResourceAccessException: I/O error on POST request for "https://hostname:8200/v1/auth/approle/login": ${extension}; nested exception is javax.net.ssl.SSLHandshakeException: ${extension}`,
      `2020-05-20 10:07:30.191  WARN 93020 --- [  restartedMain] LeaseEventPublisher$LoggingErrorListener : [RequestedSecret [path='secret/application', mode=ROTATE]] Lease [leaseId='null', leaseDuration=PT0S, renewable=false] Cannot login using org.springframework.web.client.ResourceAccessException: I/O error on POST request for "https://hostname:8200/v1/auth/approle/login": ${extension}; nested exception is javax.net.ssl.SSLHandshakeException: ${extension}`,
    ]
    expect((await diagnose(vault)).primary).not.toContain('confirmed_cause')
    for (const other of [
      'Received fatal alert: handshake_failure',
      'Received fatal alert: protocol_version',
      'No appropriate protocol (protocol is disabled or cipher suites are inappropriate)',
    ]) {
      const lines = [
        'javax.net.ssl.SSLHandshakeException: ' + other,
        '\tat sun.security.ssl.Alert.createSSLException(Alert.java:131)',
      ]
      expect((await diagnose([...lines, ...lines])).primary, other).not.toContain('confirmed_cause')
    }
    // A message that names a certificate failure, by the JDK's trust path or by a certificate
    // alert's description, is still one, and two records of it corroborate it.
    const pkix = vault.map((line) =>
      line.replaceAll(
        extension,
        'PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target',
      ),
    )
    expect((await diagnose(pkix)).primary).toEqual(['TD-04', 'confirmed_cause'])
    for (const alert of ['bad_certificate', 'certificate_expired', 'unknown_ca', 'certificate_unknown']) {
      const lines = [
        `javax.net.ssl.SSLHandshakeException: Received fatal alert: ${alert}`,
        '\tat sun.security.ssl.Alert.createSSLException(Alert.java:131)',
      ]
      expect((await diagnose([...lines, ...lines])).primary, alert).toEqual(['TD-04', 'confirmed_cause'])
    }
  })
})

describe('kinds the families retired in the twelfth round showed (TD 2.9.0)', () => {
  it('confirms no start-up failure from its banners alone, however often they repeat: they say the start failed, not why', async () => {
    // https://github.com/thingsboard/thingsboard/issues/39 (test/corpus/excerpts/thingsboard.json):
    // Spring Boot logs "Application run failed" (1.x: "Application startup failed") once per
    // failed run, with the failure as its throwable (`reportFailure` in SpringApplication.java,
    // https://github.com/spring-projects/spring-boot); three restarts, three banners, no cause.
    const restarts = ['03:49:35,344', '03:59:19,767', '04:04:11,875'].map(
      (at) => `2017-01-26 ${at} [main] ERROR o.s.boot.SpringApplication - Application startup failed`,
    )
    expect(await diagnose(restarts)).toEqual({ primary: ['TD-05', 'probable_cause'], branches: ['TD-05'] })
    // Tomcat's two banners: "Context [{0}] startup failed due to previous errors"
    // (`standardContext.startFailed` in java/org/apache/catalina/core/LocalStrings.properties,
    // https://github.com/apache/tomcat) says itself that the cause is elsewhere.
    const tomcat = [
      '03-Apr-2020 17:50:16.741 SEVERE [main] org.apache.catalina.core.StandardContext.startInternal One or more listeners failed to start. Full details will be found in the appropriate container log file',
      '03-Apr-2020 17:50:16.750 SEVERE [main] org.apache.catalina.core.StandardContext.startInternal Context [/shop] startup failed due to previous errors',
    ]
    expect((await diagnose(tomcat)).primary).toEqual(['TD-05', 'probable_cause'])
    // A start-up failure's class on two records, with no cause under it that has a meaning.
    const bean = [
      "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'shopService': Invocation of init method failed",
      '\tat org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean(AbstractAutowireCapableBeanFactory.java:1786)',
    ]
    expect((await diagnose([...bean, ...bean])).primary).toEqual(['TD-05', 'probable_cause'])
    // A banner beside a cause the rule names (a port in use) still corroborates it.
    const portInUse = [
      '2016-02-16 17:46:14.334 ERROR 24753 --- [           main] o.s.boot.SpringApplication               : Application startup failed',
      'java.lang.RuntimeException: java.net.BindException: Address already in use',
    ]
    expect((await diagnose(portInUse)).primary).toEqual(['TD-05', 'confirmed_cause'])
    expect((await diagnose([...restarts, ...portInUse.slice(1)])).primary).toEqual(['TD-05', 'confirmed_cause'])
  })
})

describe('kinds the tuning part’s TD-18 and TD-13 misses showed (taxonomy 1.16.0, the reader)', () => {
  it('reads the Aerospike client’s SERVER_NOT_AVAILABLE result code as the database unreachable (TD-18)', async () => {
    // https://github.com/aerospike/aerospark/issues/25 (test/corpus/excerpts/aerospike.json). The
    // Java client's AerospikeException prints its result code first: `Error Code <code>: ` before
    // client 4 (`getMessage`), `Error <code>,<iteration>,…: ` since; ResultCode.java
    // (https://github.com/aerospike/aerospike-client-java, client/src/com/aerospike/client/)
    // documents SERVER_NOT_AVAILABLE, "Server is not accepting requests", as 11 (the server's
    // own code, proto.h) and, since client 4, as the client's -8, the code of its
    // `AerospikeException.Connection`, "thrown when client can't connect to the server".
    expect(
      (await diagnose(['com.aerospike.client.AerospikeException: Error Code 11: Server not available'])).primary,
    ).toEqual(['TD-18', 'probable_cause'])
    expect(
      (
        await diagnose([
          'com.aerospike.client.AerospikeException: Error -8,1,1000,30000,2,BB9020011AC4202 10.0.0.7 3000: Server not available',
          '\tat com.aerospike.client.command.SyncCommand.executeCommand(SyncCommand.java:133)',
        ])
      ).primary,
    ).toEqual(['TD-18', 'probable_cause'])
    // Another result code (2, KEY_NOT_FOUND_ERROR) says nothing of the database's reach, and
    // another library's "Error Code 11" is not Aerospike's (EAGAIN is errno 11 on Linux).
    expect((await diagnose(['com.aerospike.client.AerospikeException: Error Code 2: Key not found'])).primary[0]).toBe(
      'TD-08',
    )
    expect(
      (await diagnose(['com.example.media.TranscodeException: Error Code 11: Server not available'])).primary[0],
    ).toBe('TD-08')
    // A refusal under the client's frames is the database's, as under any database driver.
    const refused = [
      'java.net.ConnectException: Connection refused',
      '\tat sun.nio.ch.SocketChannelImpl.checkConnect(Native Method)',
      '\tat com.aerospike.client.cluster.Connection.<init>(Connection.java:86)',
    ]
    expect((await diagnose(refused)).primary).toEqual(['TD-18', 'probable_cause'])
  })

  it('reads the JDK’s TimeoutException thrown in a database client’s frames as the database not answering (TD-18), elsewhere as nothing', async () => {
    // https://github.com/Azure-Samples/azure-cosmos-db-graph-java-getting-started/issues/18
    // (test/corpus/excerpts/gremlin.json). java.util.concurrent.TimeoutException is "thrown when
    // a blocking operation times out" (its javadoc): any wait, so it has no meaning of its own.
    // Thrown by a database client, the wait was for the database: the Gremlin driver throws it
    // from Client.chooseConnection when no host is available, "perhaps the servers are just
    // all down" (gremlin-driver/src/main/java/org/apache/tinkerpop/gremlin/driver/Client.java,
    // https://github.com/apache/tinkerpop).
    const noHost = [
      'Exception in thread "main" java.lang.RuntimeException: java.lang.RuntimeException: java.util.concurrent.TimeoutException: Timed out while waiting for an available host - check the client configuration and connectivity to the server if this message persists',
      '\tat org.apache.tinkerpop.gremlin.driver.Client.submit(Client.java:218)',
      'Caused by: java.util.concurrent.TimeoutException: Timed out while waiting for an available host - check the client configuration and connectivity to the server if this message persists',
      '\tat org.apache.tinkerpop.gremlin.driver.Client$ClusteredClient.chooseConnection(Client.java:463)',
    ]
    expect((await diagnose(noHost)).primary).toEqual(['TD-18', 'probable_cause'])
    // A cause printed without frames of its own was thrown where its wrapper's frames run.
    expect((await diagnose(noHost.slice(0, 2))).primary).toEqual(['TD-18', 'probable_cause'])
    // The same wait in an application's own frames, or a namesake that is not the JDK's class, is no failure of the catalogue.
    const own = noHost.map((line) => line.replaceAll('org.apache.tinkerpop.gremlin.driver.', 'com.example.batch.'))
    expect((await diagnose(own)).primary[0]).toBe('TD-08')
    const namesake = noHost.map((line) =>
      line.replaceAll('java.util.concurrent.TimeoutException', 'com.example.graph.TimeoutException'),
    )
    expect((await diagnose(namesake)).primary[0]).toBe('TD-08')
  })
  it('diagnoses Paho’s time-out printed as `Caused by: <message> (32000)` as a call past its time-out (TD-13), probable', async () => {
    // https://github.com/256dpi/processing-mqtt/issues/28 (test/corpus/excerpts/paho.json): the
    // reason code 32000, REASON_CODE_CLIENT_TIMEOUT, in the JVM's Spanish (taxonomy 1.8.0 reads it
    // in MqttException's toString()); its class is inferred from the layout, so it never confirms.
    const lines = [
      'java.lang.RuntimeException: [MQTT] Failed to publish: Tiempo de espera excedido al esperar una respuesta del servidor',
      '\tat mqtt.MQTTClient.publish(Unknown Source)',
      'Caused by: Tiempo de espera excedido al esperar una respuesta del servidor (32000)',
      '\tat org.eclipse.paho.client.mqttv3.internal.Token.waitForCompletion(Token.java:112)',
    ]
    expect((await diagnose(lines)).primary).toEqual(['TD-13', 'probable_cause'])
    expect((await diagnose([...lines, ...lines])).primary).toEqual(['TD-13', 'probable_cause'])
  })

  it('diagnoses an errno printed as its number on a line with no class by its meaning: EMFILE an OS limit (TD-06), ENOMEM native memory (TD-12, probable)', async () => {
    // https://github.com/questdb/questdb/issues/3405 and /issues/4303 (test/corpus/excerpts/questdb.json).
    const emfile = [
      '2023-05-25T23:35:11.005398Z C i.q.c.p.PGConnectionContext error [msg=`could not open read-only [file=/opt/homebrew/var/questdb/db/BinanceUM-DOTUSDT-kline-1m/2023-02-20.0/unit.i]`, errno=24]',
    ]
    // TD-06 is always undetermined: the service cannot inspect the host (builtin-rules/td.json).
    expect((await diagnose(emfile)).primary).toEqual(['TD-06', 'undetermined'])
    const enomem = [
      '2024-03-19T07:40:02.129410Z C i.q.c.h.p.JsonQueryProcessorState [24] error [msg=`could not mmap  [size=28800, offset=0, fd=261855, memUsed=7301204960, fileLen=28800]`, errno=12, q=`SELECT 1`]',
    ]
    expect((await diagnose(enomem)).primary).toEqual(['TD-12', 'probable_cause'])
    // A bare number is weaker than a class: repeated, it still corroborates nothing.
    expect((await diagnose([...enomem, ...enomem])).primary).toEqual(['TD-12', 'probable_cause'])
  })

  it('reads the driver’s message Flyway quotes from getConnection() as the exception of the driver its JDBC URL names: PostgreSQL’s `The connection attempt failed.` is TD-18, probable', async () => {
    // https://github.com/open-metadata/OpenMetadata/issues/16839 (test/corpus/excerpts/openmetadata.json).
    // Flyway's JdbcUtils.openConnection throws `new FlywaySqlException("Unable to obtain connection
    // from database" + getDataSourceInfo(dataSource, true) + ": " + e.getMessage(), e)` around the
    // SQLException of DataSource.getConnection() (https://github.com/flyway/flyway,
    // flyway-core/src/main/java/org/flywaydb/core/internal/jdbc/JdbcUtils.java); the URL in the
    // data source's info names the driver, whose exception that is (pgjdbc's PSQLException).
    const flyway = [
      'Migrating the OpenMetadata Schema.',
      'Failed to db migration due to ',
      "org.flywaydb.core.internal.exception.FlywaySqlException: Unable to obtain connection from database (jdbc:postgresql://postgresql:5432/openmetadata_db?allowPublicKeyRetrieval=true&useSSL=false&serverTimezone=UTC) for user 'openmetadata_user': The connection attempt failed.",
    ]
    expect((await diagnose(flyway)).primary).toEqual(['TD-18', 'probable_cause'])
    expect((await diagnose([...flyway, ...flyway])).primary).toEqual(['TD-18', 'probable_cause'])
    // Another driver's URL does not make the words PostgreSQL's; nor does another wrapper.
    expect((await diagnose(flyway.map((l) => l.replace('jdbc:postgresql:', 'jdbc:example:')))).primary[0]).toBe('TD-08')
    expect(
      (
        await diagnose(
          flyway.map((l) =>
            l.replace('org.flywaydb.core.internal.exception.FlywaySqlException', 'com.example.MigrationException'),
          ),
        )
      ).primary[0],
    ).toBe('TD-08')
  })

  it('reads the host name dom4j’s DocumentException quotes after `Nested exception: `, in a relocated copy too, as a DNS failure (TD-17), probable', async () => {
    // https://github.com/dotCMS/core/issues/11131 (test/corpus/excerpts/dotcms.json): dom4j 1.x
    // prints its nested exception's message after its own, `super.getMessage() + " Nested
    // exception: " + nestedException.getMessage()`, and SAXReader wraps the parser's exception
    // with its message (https://github.com/dom4j/dom4j, src/main/java/org/dom4j/DocumentException.java);
    // a host name alone is the JDK's UnknownHostException's message. dotCMS relocates dom4j.
    const dom4j = [
      '[24/03/17 11:16:06:210 CST] ERROR cfg.Configuration: problem parsing configuration/hibernate.cfg.xml',
      'com.dotcms.repackage.org.dom4j.DocumentException: hibernate.sourceforge.net Nested exception: hibernate.sourceforge.net',
      '\tat com.dotcms.repackage.org.dom4j.io.SAXReader.read(SAXReader.java:484) ~[dot.tika-app-1.3_3.jar:1.3]',
    ]
    expect((await diagnose(dom4j)).primary).toEqual(['TD-17', 'probable_cause'])
    expect((await diagnose([...dom4j, ...dom4j])).primary).toEqual(['TD-17', 'probable_cause'])
    // A nested message that is no host name says nothing of a lookup.
    expect(
      (await diagnose(dom4j.map((l) => l.replaceAll('hibernate.sourceforge.net', 'Content is not allowed in prolog.'))))
        .primary[0],
    ).toBe('TD-08')
  })
})
