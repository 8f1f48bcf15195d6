import { check } from 'recheck'
import { describe, expect, it } from 'vitest'
import { recheckOptions } from '../../src/rules/pattern-safety.js'
import { codesIn } from '../../src/text/exceptions/codes.js'
import { bracketHead, word } from '../../src/text/exceptions/levels.js'
import { rootPackage } from '../../src/text/exceptions/message-lines.js'
import { hostLabel } from '../../src/text/exceptions/quoted-causes.js'
import { readExceptions } from '../../src/text/exceptions/read-exceptions.js'
import { type ExceptionRecord, readerBounds } from '../../src/text/exceptions/records.js'
import { numberedAttempt, retry, sourcePosition } from '../../src/text/exceptions/trace-lines.js'
import { excerptOfText } from '../../src/text/excerpt.js'
import { mysqlNestedBlock } from '../helpers/mysql-nested-block.js'

// The exception reader (docs/design.md, "Exceptions and codes") on real excerpts of each
// layout, each copied verbatim from the public source named beside it.

const read = (lines: readonly string[], componentPrefixes: string[] = []) =>
  readExceptions(excerptOfText(lines.join('\n')), { componentPrefixes })

/** A record as [line, level, class chain outermost first]. */
const chain = (record: ExceptionRecord) => [record.line, record.level, [record, ...record.causes].map((t) => t.class)]

describe('the exception reader, by layout', () => {
  it('reads a plain trace: message line, header, frames, causes, suppressed ones and a folded run', () => {
    // The shape of Throwable.printStackTrace (docs.oracle.com/en/java/javase/17/docs/api/java.base/java/lang/Throwable.html#printStackTrace()),
    // with a run of repeated frames folded as the log tail writes it.
    const records = read(
      [
        '2026-11-22 05:00:01.002 ERROR 1 --- [nio-8080-exec-3] o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() threw exception',
        'org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection',
        '\tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)',
        'Caused by: org.postgresql.util.PSQLException: Connection to db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.',
        '\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:319)',
        '\tSuppressed: java.lang.IllegalStateException: pool closing',
        '\t\tat com.zaxxer.hikari.pool.HikariPool.shutdown(HikariPool.java:233)',
        '\t\tCaused by: java.lang.InterruptedException: sleep interrupted',
        'Caused by: java.net.ConnectException: Connection refused',
        '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
        '\t... 1,000 identical frames folded',
        '\t... 12 more',
        '2026-11-22 05:00:02.000 INFO  1 --- [main] c.e.Orders : next',
      ],
      ['org.postgresql.', 'com.zaxxer.hikari.'],
    )
    expect(records.map(chain)).toEqual([
      [
        2,
        'error',
        [
          'org.springframework.jdbc.CannotGetJdbcConnectionException',
          'org.postgresql.util.PSQLException',
          'java.net.ConnectException',
        ],
      ],
    ])
    const [record] = records as [ExceptionRecord]
    expect(record.end).toBe(12)
    expect(record.causes.map((c) => [c.frames, c.errno])).toEqual([
      [['org.postgresql.'], null],
      [[], 'ECONNREFUSED'],
    ])
    expect(record.suppressed.map((s) => [s.class, s.message, s.frames])).toEqual([
      ['java.lang.IllegalStateException', 'pool closing', ['com.zaxxer.hikari.']],
    ])
    expect(record.errno).toBe('ECONNREFUSED')
  })

  it('reads the causes a message prints, Spring nested exceptions and a message continued after a blank line', () => {
    // https://github.com/raj-saxena/spring-boot-1-vs-2-performance/issues/1 (first line, cut)
    // https://github.com/brettwooldridge/HikariCP/issues/1916
    const records = read([
      'org.springframework.web.client.ResourceAccessException: I/O error on POST request for "http://localhost:8090/register": Connection refused: connect; nested exception is java.net.ConnectException: Connection refused: connect',
      'Caused by: com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure',
      '',
      'The last packet successfully received from the server was 3,600,089 milliseconds ago. The last packet sent successfully to the server was 3,600,089 milliseconds ago.',
      '\tat com.mysql.cj.jdbc.exceptions.SQLError.createCommunicationsException(SQLError.java:174) ~[mysql-connector-java-8.0.28.jar:8.0.28]',
    ])
    expect(records.map(chain)).toEqual([
      [
        1,
        null,
        [
          'org.springframework.web.client.ResourceAccessException',
          'java.net.ConnectException',
          'com.mysql.cj.jdbc.exceptions.CommunicationsException',
        ],
      ],
    ])
    expect(records[0]?.causes[1]?.message).toMatch(/^Communications link failure The last packet successfully received/)
  })

  it('reads a Spring chain of nested exceptions on one line down to its deepest cause, five deep', () => {
    // https://github.com/spring-projects/spring-boot/issues/2768 (test/corpus/excerpts/ehcache.json):
    // four bean wrappers before the NoClassDefFoundError that decides.
    const records = read([
      "Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'cacheAutoConfigurationValidator': Injection of autowired dependencies failed; nested exception is org.springframework.beans.factory.BeanCreationException: Could not autowire field: private org.springframework.cache.CacheManager org.springframework.boot.autoconfigure.cache.CacheAutoConfiguration$CacheManagerValidator.cacheManager; nested exception is org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'cacheManager' defined in class path resource [org/springframework/boot/autoconfigure/cache/EhCacheCacheConfiguration.class]: Bean instantiation via factory method failed; nested exception is org.springframework.beans.BeanInstantiationException: Failed to instantiate [org.springframework.cache.ehcache.EhCacheCacheManager]: Factory method 'cacheManager' threw exception; nested exception is java.lang.NoClassDefFoundError: net/sf/ehcache/CacheException",
      '\tat org.springframework.beans.factory.annotation.AutowiredAnnotationBeanPostProcessor.postProcessPropertyValues(AutowiredAnnotationBeanPostProcessor.java:334)',
    ])
    expect(records[0]?.causes.map((c) => c.class)).toEqual([
      'org.springframework.beans.factory.BeanCreationException',
      'org.springframework.beans.factory.BeanCreationException',
      'org.springframework.beans.BeanInstantiationException',
      'java.lang.NoClassDefFoundError',
    ])
  })

  it("reads the class Spring's `nested exception is` names even when its name has no suffix: an inner class", () => {
    // https://github.com/spring-projects/spring-vault/issues/350 (test/corpus/excerpts/spring-vault.json):
    // Spring appends `nested exception is ` and the cause's toString(), which starts with its class
    // name (NestedExceptionUtils.buildMessage, https://github.com/spring-projects/spring-framework),
    // here RestTemplate's inner class for a 400 with no `Exception` at its end.
    const records = read([
      "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'vaultService': Invocation of init method failed; nested exception is org.springframework.vault.authentication.VaultLoginException: Cannot login using AppRole: missing client token; nested exception is org.springframework.web.client.HttpClientErrorException$BadRequest: 400 Bad Request",
      '\tat org.springframework.beans.factory.annotation.InitDestroyAnnotationBeanPostProcessor.postProcessBeforeInitialization(InitDestroyAnnotationBeanPostProcessor.java:139) ~[spring-beans-5.1.3.RELEASE.jar:5.1.3.RELEASE]',
    ])
    expect(records.map(chain)).toEqual([
      [
        1,
        null,
        [
          'org.springframework.beans.factory.BeanCreationException',
          'org.springframework.vault.authentication.VaultLoginException',
          'org.springframework.web.client.HttpClientErrorException$BadRequest',
        ],
      ],
    ])
    expect(records[0]?.causes[1]?.message).toBe('400 Bad Request')
    // Only a qualified class name stands after the marker; a word or a sentence is no cause.
    expect(
      read(['org.springframework.dao.DataAccessResourceFailureException: failed; nested exception is null'])[0]?.causes,
    ).toEqual([])
  })

  it('reads traces behind a prefix: a container name, journal fields, Cloud Foundry sources', () => {
    // https://github.com/deviantony/docker-elk/issues/990
    const compose = read([
      'logstash-1       |      at java.lang.Thread.run(java/lang/Thread.java:840) [?:?]',
      'logstash-1       | Caused by: java.net.ConnectException: Connection refused',
      'logstash-1       |      at sun.nio.ch.Net.pollConnect(Native Method) ~[?:?]',
      'logstash-1       |      at sun.nio.ch.Net.pollConnectNow(Net.java:672) ~[?:?]',
    ])
    expect(compose.map((r) => [r.line, r.end, r.class, r.errno])).toEqual([
      [2, 4, 'java.net.ConnectException', 'ECONNREFUSED'],
    ])
    // https://github.com/ufal/clarin-dspace/issues/1034
    const journal = read([
      'Feb 20 08:40:15 repository-new env[19763]: 20-Feb-2023 08:40:15.056 SEVERE [http-apr-8080-Acceptor] org.apache.tomcat.util.net.Acceptor.run Socket accept failed',
      'Feb 20 08:40:15 repository-new env[19763]:         org.apache.tomcat.jni.Error: 24: Too many open files',
      'Feb 20 08:40:15 repository-new env[19763]:                 at org.apache.tomcat.jni.Socket.accept(Native Method)',
    ])
    // Its level is the owning line's (SEVERE).
    expect(journal.map((r) => [r.line, r.end, r.class, r.errno, r.level])).toEqual([
      [2, 3, 'org.apache.tomcat.jni.Error', 'EMFILE', 'error'],
    ])
    // https://github.com/cloudfoundry/uaa/issues/165
    const cloudFoundry = read([
      '2015-06-10T11:01:36.84-0700 [App/0]      OUT org.springframework.jdbc.CannotGetJdbcConnectionException: Could not get JDBC Connection; nested exception is org.apache.tomcat.jdbc.pool.PoolExhaustedException: [http-nio-61126-exec-95] Timeout: Pool empty. Unable to fetch a connection in 30 seconds, none available[size:4; busy:4; idle:0; lastwait:30000].',
      '2015-06-10T11:01:36.84-0700 [App/0]      OUT \tat org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:80)',
      '2015-06-10T11:01:36.84-0700 [App/0]      OUT \tat org.springframework.jdbc.core.JdbcTemplate.execute(JdbcTemplate.java:630)',
    ])
    expect(cloudFoundry.map(chain)).toEqual([
      [
        1,
        null,
        [
          'org.springframework.jdbc.CannotGetJdbcConnectionException',
          'org.apache.tomcat.jdbc.pool.PoolExhaustedException',
        ],
      ],
    ])
    expect(cloudFoundry[0]?.end).toBe(3)
  })

  it('reads JSON-escaped traces and JSON lines: ECS, Quarkus, a JSON-like line that is not valid JSON', () => {
    // https://github.com/elastic/ecs-logging-java/issues/25 (the stack trace as an array of lines, cut after four)
    const ecs = read([
      '{"@timestamp":"2019-09-15T15:22:41.048Z", "log.level":"ERROR", "message":"Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed; nested exception is java.lang.RuntimeException: Expected: controller used to showcase what happens when an exception is thrown] with root cause", "process.thread.name":"http-nio-8080-exec-1","log.logger":"org.apache.catalina.core.ContainerBase.[Tomcat].[localhost].[/].[dispatcherServlet]","error.code":"java.lang.RuntimeException","error.message":"Expected: controller used to showcase what happens when an exception is thrown","error.stack_trace_lines":["java.lang.RuntimeException: Expected: controller used to showcase what happens when an exception is thrown","\\tat org.springframework.samples.petclinic.system.CrashController.triggerException(CrashController.java:33)","\\tat sun.reflect.NativeMethodAccessorImpl.invoke0(Native Method)","\\tat sun.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:62)"]}',
    ])
    expect(ecs.map((r) => [r.line, r.level, r.class, r.message])).toEqual([
      [
        1,
        'error',
        'java.lang.RuntimeException',
        'Expected: controller used to showcase what happens when an exception is thrown',
      ],
    ])
    // https://github.com/quarkusio/quarkus/issues/51571 (the frames cut after the first)
    const quarkus = read([
      '{"@timestamp":"2025-12-15T21:30:45.573442+01:00","event.sequence":1206,"log.logger":"io.quarkus.runtime.Application","log.level":"ERROR","message":"Failed to start application","process.thread.name":"Quarkus Main Thread","process.thread.id":76,"mdc":{},"ndc":"","host.hostname":"***","process.name":"***/bin/java","process.pid":46184,"exception":{"refId":1,"exceptionType":"java.lang.RuntimeException","error.message":"Failed to start quarkus","frames":[{"class":"io.quarkus.runner.ApplicationImpl","method":"doStart"}]}}',
    ])
    expect(quarkus.map((r) => [r.line, r.level, r.class, r.message])).toEqual([
      [1, 'error', 'java.lang.RuntimeException', 'Failed to start quarkus'],
    ])
    // A logstash-logback-encoder line cut by a line limit: not JSON any more, its `\n` escapes still split the trace.
    const cut = read([
      '{"@timestamp":"2026-11-22T05:00:01.002Z","level":"WARN","stack_trace":"org.springframework.dao.DataAccessResourceFailureException: x\\n\\tat a.B.c(B.java:1)\\nCaused by: java.net.SocketTimeoutException: Read timed out\\n\\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:',
    ])
    expect(cut.map(chain)).toEqual([
      [1, 'warn', ['org.springframework.dao.DataAccessResourceFailureException', 'java.net.SocketTimeoutException']],
    ])
  })

  it("reads Docker's json-file lines as the lines inside them", () => {
    // The json-file driver's format: https://docs.docker.com/engine/logging/drivers/json-file/
    const records = read([
      '{"log":"java.net.UnknownHostException: zookeeper: Name or service not known\\n","stream":"stderr","time":"2021-09-06T10:00:00.000000000Z"}',
      '{"log":"\\tat java.base/java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method)\\n","stream":"stderr","time":"2021-09-06T10:00:00.000000001Z"}',
    ])
    expect(records.map((r) => [r.line, r.end, r.class, r.errno])).toEqual([
      [1, 2, 'java.net.UnknownHostException', 'EAI_NONAME'],
    ])
  })

  it('reads a Java exception named the way JRuby prints it (Logstash): Java::JavaSql::SQLRecoverableException', () => {
    // https://github.com/logstash-plugins/logstash-integration-jdbc/issues/63
    const records = read([
      '[ERROR] 2021-04-14 14:13:23.626 [[main]<jdbc] jdbc - Unable to connect to database. Tried 1 times {:error_message=>"Java::JavaSql::SQLRecoverableException: IO Error: The Network Adapter could not establish the connection"}',
    ])
    expect(records.map((r) => [r.line, r.level, r.class, r.message])).toEqual([
      [
        1,
        'error',
        'java.sql.SQLRecoverableException',
        'IO Error: The Network Adapter could not establish the connection"}',
      ],
    ])
    // Ruby's own exceptions are not Java classes; a package of several segments is read back from its camel case.
    expect(read(['Sequel::DatabaseConnectionError: PG::ConnectionBad: FATAL'])).toEqual([])
    expect(
      read(['Java::OrgPostgresqlUtil::PSQLException: FATAL: password authentication failed']).map((r) => r.class),
    ).toEqual(['org.postgresql.util.PSQLException'])
  })

  it('reads wrapped records (a Payara record whose message line precedes the trace) and localised levels', () => {
    // https://github.com/IQSS/dataverse/issues/8208
    const payara = read([
      '[2021-11-03T16:33:08.220+0100] [Payara 5.2020.6] [SEVERE] [] [javax.enterprise.system.core] [tid: _ThreadID=85 _ThreadName=admin-thread-pool::admin-listener(1)] [timeMillis: 1635953588220] [levelValue: 1000] [[',
      '  Exception while loading the app : EJB Container initialization error',
      'java.lang.Exception',
      '\tat com.sun.enterprise.connectors.inbound.ConnectorMessageBeanClient.setup(ConnectorMessageBeanClient.java:215)',
    ])
    expect(payara.map((r) => [r.line, r.class, r.message])).toEqual([[3, 'java.lang.Exception', '']])
    // https://github.com/javers/javers/issues/817: Tomcat's JULI in Italian (GRAVE is SEVERE).
    const italian = read([
      '28-Mar-2019 14:47:49.357 INFORMAZIONI [http-nio-8080-exec-7] org.apache.tomee.catalina.TomcatWebAppBuilder.init ------------------------- localhost -> /javerstest',
      '28-Mar-2019 14:47:49.420 GRAVE [http-nio-8080-exec-7] sun.reflect.NativeMethodAccessorImpl.invoke ContainerBase.addChild: start: ',
      ' org.apache.catalina.LifecycleException: Failed to start component [StandardEngine[Catalina].StandardHost[localhost].StandardContext[/javerstest]]',
      '\tat org.apache.catalina.util.LifecycleBase.start(LifecycleBase.java:167)',
    ])
    expect(italian.map((r) => [r.line, r.level, r.class])).toEqual([
      [3, 'error', 'org.apache.catalina.LifecycleException'],
    ])
  })

  it('reads a root cause printed first (logback %rEx, `Wrapped by:`) outermost first like any other', () => {
    // https://github.com/getsentry/sentry-java/issues/168 (frames cut)
    const records = read([
      'java.net.UnknownHostException: a9c6d0d6a85e: unknown error',
      '\t\tat java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method) ~[na:1.8.0_66]',
      '\t\t... 4 common frames omitted',
      '\tWrapped by: java.util.concurrent.ExecutionException: java.net.UnknownHostException: a9c6d0d6a85e: a9c6d0d6a85e: unknown error',
      '\t\tat java.util.concurrent.FutureTask.report(FutureTask.java:122) ~[na:1.8.0_66]',
    ])
    expect(records.map(chain)).toEqual([
      [
        1,
        null,
        ['java.net.UnknownHostException', 'java.util.concurrent.ExecutionException', 'java.net.UnknownHostException'],
      ],
    ])
  })

  it('keeps codes whatever the language of the message: French and Chinese Oracle, DB2, Hibernate and HikariCP lines', () => {
    // https://github.com/enioka-Haute-Couture/jqm/issues/432 (as the issue shows it, its accent mis-encoded)
    const french = read([
      "Caused by: java.sql.SQLException: ORA-00060: dÚtection d'interblocage pendant l'attente d'une ressource",
      '',
      '\tat oracle.jdbc.driver.T4CTTIoer11.processError(T4CTTIoer11.java:509)',
    ])
    expect(french.map((r) => [r.class, r.vendorCode])).toEqual([
      ['java.sql.SQLException', { vendor: 'oracle', code: 'ORA-00060' }],
    ])
    // https://github.com/t8y2/dbx/issues/511
    expect(
      codesIn(
        'java.sql.SQLException: ORA-12541: 无法连接。host 120.79.184.44 port 51521 中没有监听程序。 (CONNECTION_ID=cCUFCf3fRA22cE4z1fxLXg==) https://docs.oracle.com/error-help/db/ora-12541/',
      ),
    ).toEqual({ sqlState: null, vendorCode: { vendor: 'oracle', code: 'ORA-12541' }, errno: null })
    // The same message in an excerpt that is not ASCII before it: lines and offsets stay right.
    const chinese = read([
      '2026-06-02 08:13:21 信息 [main] 连接数据库 …',
      'java.sql.SQLException: ORA-12541: 无法连接。host 120.79.184.44 port 51521 中没有监听程序。 (CONNECTION_ID=cCUFCf3fRA22cE4z1fxLXg==)',
      '\tat oracle.jdbc.driver.T4CConnection.logon(T4CConnection.java:1)',
      '2026-06-02 08:13:22 严重 [main] 失败: java.lang.IllegalStateException: 数据源不可用',
    ])
    expect(chinese.map((r) => [r.line, r.end, r.level, r.class, r.vendorCode?.code ?? null])).toEqual([
      [2, 3, 'info', 'java.sql.SQLException', 'ORA-12541'],
      [4, 4, 'error', 'java.lang.IllegalStateException', null],
    ])
    // https://github.com/LinuxForHealth/FHIR/issues/787
    const db2 = read([
      'Mar 15 19:09:06 fhir-ibmcloud-75c9d8f479-vx4dm fhir-ibmcloud SEVERE SQLException encountered while inserting Resource.',
      'com.ibm.db2.jcc.am.SqlTransactionRollbackException: DB2 SQL Error: SQLCODE=-911, SQLSTATE=40001, SQLERRMC=2, DRIVER=4.26.14',
      '\tat com.ibm.db2.jcc.am.b7.a(b7.java:797)',
      '\tat com.ibm.ws.rsadapter.jdbc.WSJdbcPreparedStatement.execute(WSJdbcPreparedStatement.java:390)',
    ])
    expect(db2.map((r) => [r.line, r.level, r.sqlState, r.vendorCode])).toEqual([
      [2, 'error', '40001', { vendor: 'db2', code: '-911' }],
    ])
    // https://github.com/BreakOutEvent/breakout-backend/issues/145: a code line names no class.
    const hibernate = read([
      '2016-05-25 12:29:40.274 ERROR 1 --- [nio-8082-exec-9] o.h.engine.jdbc.spi.SqlExceptionHelper   : Deadlock found when trying to get lock; try restarting transaction',
      '2016-05-25 12:29:40.275  WARN 1 --- [nio-8082-exec-9] o.h.engine.jdbc.spi.SqlExceptionHelper   : SQL Warning Code: 1213, SQLState: 41000',
    ])
    expect(hibernate.map((r) => [r.line, r.level, r.class, r.sqlState, r.vendorCode])).toEqual([
      [2, 'warn', null, '41000', { vendor: null, code: '1213' }],
    ])
    // https://github.com/brettwooldridge/HikariCP/issues/2080 (the title)
    expect(
      codesIn(
        'HikariPool-1 - Connection org.postgresql.jdbc.PgConnection@6afe3c14 marked as broken because of SQLSTATE(08006), ErrorCode(0)',
      ),
    ).toEqual({ sqlState: '08006', vendorCode: { vendor: null, code: '0' }, errno: null })
    expect(codesIn('ERROR 1040 (08004): Too many connections').vendorCode).toEqual({ vendor: 'mysql', code: '1040' })
    expect(codesIn('Msg 1205, Level 13, State 51, Line 1').vendorCode).toEqual({ vendor: 'sqlserver', code: '1205' })
    expect(codesIn('[jcc][t4][2043][11550][4.19.26] ERRORCODE=-4499, SQLSTATE=08001')).toMatchObject({
      sqlState: '08001',
      vendorCode: { vendor: 'db2', code: '-4499' },
    })
  })

  it('reads an errno from the C library message in the host’s language: German, French, Chinese (glibc’s own translations)', () => {
    // https://github.com/DecentralizedAmateurPagingNetwork/Core/issues/148
    const german = read([
      'Dec  7 12:03:35 dapnet java[16463]: java.io.IOException: Zu viele offene Dateien',
      'Dec  7 12:03:35 dapnet java[16463]: at sun.nio.ch.ServerSocketChannelImpl.accept0(Native Method) ~[?:1.8.0_151]',
    ])
    expect(german.map((r) => [r.class, r.errno])).toEqual([['java.io.IOException', 'EMFILE']])
    // The longer message first, in every language: the system's file table is not the process's.
    expect(codesIn('java.io.IOException: Zu viele offene Dateien im System').errno).toBe('ENFILE')
    expect(codesIn('java.io.IOException: Trop de fichiers ouverts dans le système').errno).toBe('ENFILE')
    expect(codesIn('java.io.IOException: 系统中打开的文件过多').errno).toBe('ENFILE')
    expect(codesIn('java.net.ConnectException: Connexion refusée (Connection refused)').errno).toBe('ECONNREFUSED')
    expect(codesIn('java.io.IOException: Auf dem Gerät ist kein Speicherplatz mehr verfügbar').errno).toBe('ENOSPC')
    expect(codesIn('java.net.BindException: 地址已在使用 (Bind failed)').errno).toBe('EADDRINUSE')
    expect(
      codesIn('java.net.SocketException: Die Verbindung wurde vom Kommunikationspartner zurückgesetzt').errno,
    ).toBe('ECONNRESET')
    // Windows' own messages for its socket errors, which the JDK passes on from FormatMessage.
    expect(codesIn('java.io.IOException: The remote computer refused the network connection.').errno).toBe(
      'ECONNREFUSED',
    )
    expect(
      codesIn('java.net.ConnectException: No connection could be made because the target machine actively refused it')
        .errno,
    ).toBe('ECONNREFUSED')
    expect(codesIn('java.io.IOException: An existing connection was forcibly closed by the remote host').errno).toBe(
      'ECONNRESET',
    )
    expect(codesIn('java.io.IOException: The semaphore timeout period has expired.').errno).toBe('ETIMEDOUT')
    expect(codesIn('java.net.BindException: The requested address is not valid in its context').errno).toBe(
      'EADDRNOTAVAIL',
    )
  })

  it('reads an errno written as its number after an `errno` label, only where Linux and the BSDs give the number the same name', () => {
    // https://github.com/questdb/questdb/issues/3405 and /issues/4303 (test/corpus/excerpts/questdb.json):
    // QuestDB calls the C library itself and logs the errno as a number on a line with no class.
    const records = read([
      '2023-05-25T23:35:11.005398Z C i.q.c.p.PGConnectionContext error [msg=`could not open read-only [file=/opt/homebrew/var/questdb/db/BinanceUM-DOTUSDT-kline-1m/2023-02-20.0/unit.i]`, errno=24]',
      "2024-03-19T07:40:02.129410Z C i.q.c.h.p.JsonQueryProcessorState [24] error [msg=`could not mmap  [size=28800, offset=0, fd=261855, memUsed=7301204960, fileLen=28800]`, errno=12, q=`SELECT max(open_time) FROM 'binance_1s_ohlcv-btc_usdt'`]",
    ])
    expect(records.map((r) => [r.line, r.class, r.errno])).toEqual([
      [1, null, 'EMFILE'],
      [2, null, 'ENOMEM'],
    ])
    // errno-base.h (Linux) and sys/errno.h (FreeBSD, whence macOS) agree on 1-34 but EAGAIN (11).
    expect(codesIn('java.io.IOException: write failed, errno: 28').errno).toBe('ENOSPC')
    expect(codesIn('java.io.IOException: [Errno 13] open').errno).toBe('EACCES')
    // Above 34 the same number names other errnos: ECONNREFUSED is 111 on Linux, 61 on the BSDs.
    expect(codesIn('java.io.IOException: connect failed, errno=111').errno).toBeNull()
    expect(codesIn('java.io.IOException: connect failed, errno=61').errno).toBeNull()
    // A number that is no errno label's (a worker's `[24]`, a `lastErrno`) or an errno the taxonomy gives no meaning.
    expect(codesIn('java.io.IOException: worker [24] lastErrno=24').errno).toBeNull()
    expect(read(['2024-01-01T00:00:00.000000Z C i.q.c.CairoEngine [errno=19] cannot join group'])).toEqual([])
    // The label alone makes the line worth reading: no `error` or errno name need be on it.
    expect(read(['2024-01-01T00:00:00.000000Z C i.q.c.TableReader could not open [file=/db/t/a.d, errno=24]'])).toEqual(
      [expect.objectContaining({ line: 1, class: null, errno: 'EMFILE' })],
    )
  })
})

describe('messages over several lines', () => {
  /** Lines cut every `width` characters, as a console or a paste hard-wraps them. */
  const hardWrapped = (lines: readonly string[], width: number) =>
    lines.flatMap((line) => line.match(new RegExp(`.{1,${width}}`, 'g')) ?? [])

  it('joins a trace hard-wrapped at a fixed width back: the message, the causes it prints, the frames', () => {
    const logical = [
      'org.springframework.beans.factory.BeanCreationException: Error creating bean with name \'dataSource\': nested exception is com.zaxxer.hikari.pool.HikariPool$PoolInitializationException: Failed to initialize pool: FATAL: password authentication failed for user "orders"',
      '        at org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean(AbstractAutowireCapableBeanFactory.java:1786)',
      '        at com.zaxxer.hikari.pool.HikariPool.throwPoolInitializationException(HikariPool.java:596)',
      '        at java.base/java.lang.Thread.run(Thread.java:833)',
    ]
    // A wrap shows where two lines or more have the same width.
    for (const width of [80, 120]) {
      const records = read(hardWrapped(logical, width), ['com.zaxxer.hikari.'])
      expect(records.map(chain), `${width} columns`).toEqual([
        [
          1,
          null,
          [
            'org.springframework.beans.factory.BeanCreationException',
            'com.zaxxer.hikari.pool.HikariPool$PoolInitializationException',
          ],
        ],
      ])
      const [record] = records as [ExceptionRecord]
      // Joined without a space: the wrap cut a word, not a sentence.
      expect(record.causes[0]?.message).toBe(
        'Failed to initialize pool: FATAL: password authentication failed for user "orders"',
      )
      expect(record.frames).toEqual(['com.zaxxer.hikari.'])
    }
    // A wrap that cuts the class's name: the name is read whole, the level from the line above.
    const prefixed = [`2026-11-22 05:00:01,017 ERROR [main] o.e.orders.Startup - context failed: ${logical[0]}`]
    for (const width of [80, 100]) {
      const records = read(hardWrapped([...prefixed, ...logical.slice(1)], width))
      expect(
        records.map((r) => [r.level, r.class, r.causes.map((c) => c.class)]),
        `${width} columns`,
      ).toEqual([
        [
          'error',
          'org.springframework.beans.factory.BeanCreationException',
          ['com.zaxxer.hikari.pool.HikariPool$PoolInitializationException'],
        ],
      ])
    }
    // Lines of different lengths are not a wrap: a new record after a trace stays one.
    const unwrapped = read([
      'java.lang.IllegalStateException: queue closed by the consumer thread while a batch was pending',
      'java.net.ConnectException: Connection refused while the consumer was reconnecting to its br',
    ])
    expect(unwrapped.map((r) => r.class)).toEqual(['java.lang.IllegalStateException', 'java.net.ConnectException'])
    // A record and a trace's first line of the same length by chance (125 characters): a
    // sentence's last word over a whole name is no name cut by a wrap
    // (https://github.com/apache/pinot/issues/10378, test/corpus/excerpts/helix.json).
    const [pinot] = read([
      '2023/03/03 23:52:45.710 INFO [StartServiceManagerCommand] [main] Starting a Pinot [CONTROLLER] at 10.595s since launch',
      '2023/03/03 23:53:50.222 ERROR [StartServiceManagerCommand] [main] Failed to start a Pinot [CONTROLLER] at 75.106 since launch',
      'org.apache.helix.zookeeper.zkclient.exception.ZkTimeoutException: Unable to connect to zookeeper server within timeout: 60000',
    ])
    expect(pinot?.class).toBe('org.apache.helix.zookeeper.zkclient.exception.ZkTimeoutException')
    // A name cut inside it stays joined, whatever its segments: `org.eclipse.jetty.` over `io.…`.
    const jetty = `2026-11-22 05:00:01,017 WARN  [qtp-17] o.e.j.server.HttpChannel - /orders: org.eclipse.jetty.`
    const [cut] = read([jetty, `io.EofException: Early EOF${' '.repeat(jetty.length - 26)}`])
    expect(cut?.class).toBe('org.eclipse.jetty.io.EofException')
  })

  it("reads a message's own unindented paragraphs up to its trace, and H2's code at their end", () => {
    const [h2] = read([
      'org.h2.jdbc.JdbcSQLTimeoutException: Timeout trying to lock table "ORDERS"; SQL statement:',
      'UPDATE ORDERS SET STATE = ? WHERE ID = ? [50200-214]',
      '\tat org.h2.message.DbException.getJdbcSQLException(DbException.java:632)',
    ]) as [ExceptionRecord]
    expect(h2.message).toBe(
      'Timeout trying to lock table "ORDERS"; SQL statement: UPDATE ORDERS SET STATE = ? WHERE ID = ? [50200-214]',
    )
    expect(h2.vendorCode).toEqual({ vendor: 'h2', code: '50200' })
    // The same behind Dropwizard's `! ` prefix, and at the end of an excerpt without frames.
    expect(
      read(['! org.h2.jdbc.JdbcSQLException: Deadlock detected; SQL statement:', '! DELETE FROM LEDGER [40001-176]'])[0]
        ?.vendorCode,
    ).toEqual({ vendor: 'h2', code: '40001' })
    // Lines a log record or another exception follows are the log's, not the message's.
    const [closed] = read([
      'java.lang.IllegalStateException: queue closed',
      'Draining the consumer before the shutdown',
      '2026-11-22 05:00:02,117 INFO  [main] o.e.Consumer - stopped',
    ]) as [ExceptionRecord]
    expect(closed.message).toBe('queue closed')
    // Plain lines at the end of the excerpt are the message's only when they end with the driver's code.
    expect(read(['com.example.batch.FeedJobException: step failed', 'tail line'])[0]?.message).toBe('step failed')
    // A line logged twice is not a wrap, however long.
    const twice = 'SEVERE [http-nio-8080-exec-4] java.lang.OutOfMemoryError: Java heap space'
    expect(read([twice, twice]).map((r) => [r.line, r.message])).toEqual([
      [1, 'Java heap space'],
      [2, 'Java heap space'],
    ])
    expect(codesIn('Timeout [50200-214]').vendorCode).toEqual({ vendor: 'h2', code: '50200' })
    expect(codesIn('retries [3-5] and [50200] and [502001-214]').vendorCode).toBeNull()
  })
})

describe("a JVM error's reason printed without its class (jvm-reasons.ts)", () => {
  const oome = 'java.lang.OutOfMemoryError'
  /** A record as [line, level, class, message, whether the class was inferred from the reason]. */
  const reason = (r: ExceptionRecord) => [r.line, r.level, r.class, r.message, r.classFromReason === true]

  it('reads the JDK’s own OutOfMemoryError reasons alone on a line, or after a log prefix, as that error', () => {
    // test/corpus/excerpts/hazelcast.json, hazelcast-15454-client-on-liberty-heap-space (tuning part),
    // from https://github.com/hazelcast/hazelcast/issues/15454
    const hazelcast = read([
      '[WARNING ] file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml [dev] [3.12.2] ClientConnection{alive=false, connectionId=5, channel=NioChannel{/10.1.26.254:34825->/10.1.253.87:80}, remoteEndpoint=null, lastReadTime=2019-08-15 15:01:50.280, lastWriteTime=2019-08-15 15:01:50.280, closedTime=2019-08-15 15:01:50.637, connected server version=null} closed. Reason: Exception in ClientConnection{alive=true, connectionId=5, channel=NioChannel{/10.1.26.254:34825->/10.1.253.87:80}, remoteEndpoint=null, lastReadTime=2019-08-15 15:01:50.280, lastWriteTime=2019-08-15 15:01:50.280, closedTime=never, connected server version=null}, thread=hz.file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml.IO.thread-in-0',
      'Java heap space',
      '[ERROR   ] file:/opt/ibm/wlp/usr/shared/config//hazelcast/hazelcast.xml [dev] [3.12.2] Java heap space',
    ])
    expect(hazelcast.map(reason)).toEqual([
      [2, 'warn', oome, 'Java heap space', true],
      [3, 'error', oome, 'Java heap space', true],
    ])
    // The owner of a bare reason on its own line is the record it continues.
    expect(hazelcast[0]?.owner).toBe(1)
    // https://github.com/RevolutionAnalytics/rmr2/issues/158: a job client quoting its failed task's reason.
    const hadoop = read([
      '15/01/28 19:56:57 INFO mapreduce.Job: Task Id : attempt_1422488445419_0003_m_000001_0, Status : FAILED',
      'Error: Java heap space',
    ])
    expect(hadoop.map(reason)).toEqual([[2, 'info', oome, 'Java heap space', true]])
    // Each of the JDK's fixed reasons (HotSpot's universe.cpp and jvm.cpp, java.nio.Bits), behind common prefixes.
    expect(
      read([
        '2026-11-24 10:00:00.000 ERROR 1 --- [main] c.e.Loader : Metaspace',
        'SEVERE: Compressed class space',
        '| ERROR | GC overhead limit exceeded',
        '<Error> Requested array size exceeds VM limit',
        '[ERROR] unable to create native thread: possibly out of memory or process/resource limits reached',
        'ERROR c.e.Pool - unable to create new native thread',
        'ERROR c.e.Io - Direct buffer memory',
        'ERROR c.e.Old - PermGen space',
        'ERROR c.e.C2 - Java heap space: failed reallocation of scalar replaced objects',
      ]).map((r) => [r.class, r.message]),
    ).toEqual(
      [
        'Metaspace',
        'Compressed class space',
        'GC overhead limit exceeded',
        'Requested array size exceeds VM limit',
        'unable to create native thread: possibly out of memory or process/resource limits reached',
        'unable to create new native thread',
        'Direct buffer memory',
        'PermGen space',
        'Java heap space: failed reallocation of scalar replaced objects',
      ].map((message) => [oome, message]),
    )
  })

  it('reads a bare reason in a JSON line’s message, at the JSON record’s level', () => {
    const records = read(['{"@timestamp":"2026-11-24T10:00:00Z","log.level":"DEBUG","message":"Java heap space"}'])
    expect(records.map(reason)).toEqual([[1, 'debug', oome, 'Java heap space', true]])
  })

  it('never reads a line twice: a line that prints the class is the class’s own record, a bare line above it one more', () => {
    // https://github.com/0xforee/DeLogan/issues/3: the reason printed alone, then the error's own line.
    const delogan = read(['length=1640726369', '', 'Java heap space', 'java.lang.OutOfMemoryError: Java heap space'])
    expect(delogan.map(reason)).toEqual([
      [3, null, oome, 'Java heap space', true],
      [4, null, oome, 'Java heap space', false],
    ])
    // https://github.com/fabric8io/fabric8/pull/7056: Maven's summary line does not end with the reason; the error's line is read once.
    expect(
      read(['[ERROR] Java heap space -> [Help 1]', 'java.lang.OutOfMemoryError: Java heap space']).map(reason),
    ).toEqual([[2, 'error', oome, 'Java heap space', false]])
    // The class without its package is the error's own line, which the rules' patterns read: no second record.
    expect(read(['Exception in thread "main" OutOfMemoryError: Java heap space'])).toEqual([])
  })

  it('reads no reason in words, in another process’s status line, or in a GC log’s heap summary', () => {
    expect(
      read([
        // https://github.com/nextgenhealthcare/connect/issues/421: a server's reason in an HTTP status, read by its client.
        'com.webreach.mirth.client.core.ClientException: com.webreach.mirth.client.core.ClientException: method failed: HTTP/1.1 500 Java heap space',
        'INFO c.e.Tuning - raise -Xmx to give the service more Java heap space',
        ' Metaspace       used 2425K, capacity 4490K, committed 4864K, reserved 1056768K',
        'the Metaspace',
      ]).map((r) => [r.line, r.class, r.classFromReason === true]),
    ).toEqual([[1, 'com.webreach.mirth.client.core.ClientException', false]])
  })
})

describe("a driver's own message printed without its class (driver-messages.ts)", () => {
  const sqlServer = 'com.microsoft.sqlserver.jdbc.SQLServerException'

  it('reads the SQL Server driver’s TCP/IP connection failure in any of its published languages as its exception', () => {
    // test/corpus/excerpts/sqlserver.json, sqlserver-dbeaver-19358-tcp-german (tuning part),
    // from https://github.com/dbeaver/dbeaver/issues/19358: DBeaver's Eclipse log, German.
    const dbeaver = read([
      '!ENTRY org.jkiss.dbeaver.model 4 0 2023-03-09 10:09:51.254',
      "!MESSAGE Fehler beim Herstellen der TCP/IP-Verbindung mit dem Host '172.16.84.68/mssqllocaldb', Port 1433. Fehler: '172.16.84.68/mssqllocaldb. Überprüfen Sie die Verbindungseigenschaften.'.",
    ])
    expect(dbeaver.map((r) => [r.line, r.owner, r.class, r.classFromReason === true])).toEqual([
      [2, 1, sqlServer, true],
    ])
    expect(dbeaver[0]?.message.startsWith('Fehler beim Herstellen der TCP/IP-Verbindung mit dem Host')).toBe(true)
    // The English and the Chinese templates (SQLServerResource.java, SQLServerResource_zh_CN.java), the Chinese with its arguments in another order.
    expect(
      read([
        'WARN c.e.Sync - The TCP/IP connection to the host db01, port 1433 has failed. Error: "Connection refused".',
        '错误 通过端口 1433 连接到主机 db01 的 TCP/IP 连接失败。错误:“Connection refused: connect”。',
      ]).map((r) => r.class),
    ).toEqual([sqlServer, sqlServer])
  })

  it('reads HttpClient’s connect failure quoted without its class as an IOException, its OS message in any language naming the errno', () => {
    // test/corpus/excerpts/streampark.json, streampark-1902-flink-rest-refused-zh (tuning part),
    // from https://github.com/apache/streampark/issues/1902: the product logs the message alone,
    // the JVM's strerror text in Chinese (拒绝连接, ECONNREFUSED).
    const streampark = read([
      '2022-10-26 09:11:50.409 StreamPark [ForkJoinPool-1-worker-51] WARN  o.a.s.f.k.w.FlinkJobStatusWatcher:227 - The retry fetch failed, final status failed, errorStack=Connect to http://172.18.17.222:56651 [/172.18.17.222] failed: 拒绝连接.',
    ])
    expect(streampark.map((r) => [r.line, r.class, r.errno, r.classFromReason === true])).toEqual([
      [1, 'java.io.IOException', 'ECONNREFUSED', true],
    ])
    expect(streampark[0]?.message).toBe('Connect to http://172.18.17.222:56651 [/172.18.17.222] failed: 拒绝连接.')
    // HttpClient 5's spelling (ConnectExceptionSupport): the endpoint, then the same list.
    expect(
      read([
        'WARN c.e.Sync - Connect to https://api.example.com:443 [api.example.com/10.0.0.7] failed: connect timed out',
      ]).map((r) => [r.class, r.message]),
    ).toEqual([
      [
        'java.io.IOException',
        'Connect to https://api.example.com:443 [api.example.com/10.0.0.7] failed: connect timed out',
      ],
    ])
  })

  it('reads no HttpClient connect failure without its list of resolved addresses (InetAddress’s host/address)', () => {
    expect(
      read([
        'INFO c.e.Sync - Connect to db01 failed: retrying',
        'INFO c.e.Sync - trying to connect to [db01] failed nodes',
        'INFO c.e.Sync - Connect to db01 [pending] queued',
      ]),
    ).toEqual([])
  })

  it('reads no driver message from its parts out of order or a part alone', () => {
    expect(
      read([
        'ERROR c.e.Sync - the host db01, port 1433: The TCP/IP connection to the host failed',
        'ERROR c.e.Sync - ホスト db01 に接続できません',
      ]),
    ).toEqual([])
  })
})

describe("a cause a wrapper's message quotes, its own line not in view (quoted-causes.ts)", () => {
  const unknownHost = 'java.net.UnknownHostException'

  it('reads a host name alone, quoted by the AWS SDK or Feign, as the UnknownHostException the JDK throws with it', () => {
    // test/corpus/excerpts/aws-sdk.json, aws-sdk-813-s3-unknown-host-gcp (tuning part since
    // its family was retired), from https://github.com/aws/aws-sdk-java/issues/813.
    const aws = read([
      'com.amazonaws.SdkClientException: Unable to execute HTTP request: mybucket.s3.us-east-2.amazonaws.com',
      'at com.amazonaws.http.AmazonHttpClient$RequestExecutor.handleRetryableException (AmazonHttpClient.java:1175)',
      'at com.amazonaws.http.AmazonHttpClient$RequestExecutor.executeHelper (AmazonHttpClient.java:1121)',
    ])
    expect(aws.map((r) => [...chain(r), r.causes[0]?.message, r.classFromReason])).toEqual([
      [1, null, ['com.amazonaws.SdkClientException', unknownHost], 'mybucket.s3.us-east-2.amazonaws.com', true],
    ])
    // https://juejin.cn/post/7599330434425651251: a service name, which Feign's message
    // shows as its URL's host too; its first lines, before the `Caused by:` line.
    const feign = [
      'feign.RetryableException: knowledge-server executing POST http://knowledge-server/historyQurey/rest/insert',
      'at feign.FeignException.errorExecuting(FeignException.java:249)',
      'at feign.SynchronousMethodHandler.executeAndDecode(SynchronousMethodHandler.java:129)',
    ]
    expect(read(feign).map((r) => [chain(r), r.classFromReason])).toEqual([
      [[1, null, ['feign.RetryableException', unknownHost]], true],
    ])
    // With the cause's own line in view, that line is the cause: nothing is inferred.
    const withCause = read([
      ...feign,
      'at feign.SynchronousMethodHandler.invoke(SynchronousMethodHandler.java:89)',
      'Caused by: java.net.UnknownHostException: knowledge-server',
      'at java.net.AbstractPlainSocketImpl.connect(AbstractPlainSocketImpl.java:184)',
    ])
    expect(withCause.map((r) => [chain(r), r.classFromReason])).toEqual([
      [[1, null, ['feign.RetryableException', unknownHost]], undefined],
    ])
  })

  it('reads a host name alone that Spring’s RestTemplate quotes after its URL as the UnknownHostException', () => {
    // test/corpus/excerpts/eureka.json, eureka-scn-4434-k8s-headless-peer-host-io-error (tuning
    // part since its family was retired), from https://github.com/spring-cloud/spring-cloud-netflix/issues/4434.
    const spring = read([
      'org.springframework.web.client.ResourceAccessException: I/O error on POST request for "http://zksr-1.zksr-headless:8761/eureka/apps/ZOOKEEPERS%20SERVICE%20REGISTRY": zksr-1.zksr-headless',
      '\tat org.springframework.web.client.RestTemplate.createResourceAccessException(RestTemplate.java:926)',
    ])
    expect(spring.map((r) => [chain(r), r.classFromReason])).toEqual([
      [[1, null, ['org.springframework.web.client.ResourceAccessException', unknownHost]], true],
    ])
    // Its other causes' words are read as they stand; a message without the URL's quote, nothing.
    const others = [
      'org.springframework.web.client.ResourceAccessException: I/O error on GET request for "http://registry:8761/eureka/apps/": Read timed out',
      'org.springframework.web.client.ResourceAccessException: I/O error on GET request for http://registry:8761/eureka/apps/ registry.example.com',
    ]
    expect(read(others).map((r) => [r.causes.length, r.classFromReason])).toEqual(others.map(() => [0, undefined]))
  })

  it('infers nothing from other quoted messages: words, an address, a bare word, a class, an unlisted wrapper', () => {
    const lines = [
      'com.amazonaws.SdkClientException: Unable to execute HTTP request: Read timed out',
      'com.amazonaws.SdkClientException: Unable to execute HTTP request: 10.0.4.17',
      'com.amazonaws.SdkClientException: Unable to execute HTTP request: null',
      'feign.RetryableException: knowledge-server executing POST http://10.0.4.17/historyQurey/rest/insert',
      'com.example.ClientException: Unable to execute HTTP request: mybucket.s3.us-east-2.amazonaws.com',
    ]
    expect(read(lines).map((r) => [r.causes.length, r.classFromReason])).toEqual(lines.map(() => [0, undefined]))
    // A cause without a message prints its class: the reader reads that class, as printed.
    expect(
      read([
        'software.amazon.awssdk.core.exception.SdkClientException: Unable to execute HTTP request: java.io.InterruptedIOException',
      ]).map((r) => [chain(r), r.classFromReason]),
    ).toEqual([
      [
        [1, null, ['software.amazon.awssdk.core.exception.SdkClientException', 'java.io.InterruptedIOException']],
        undefined,
      ],
    ])
  })
})

describe("MySQL Connector/J's nested exception block (nested-headers.ts)", () => {
  const block = mysqlNestedBlock

  it('reads the class and MESSAGE lines as the header of the trace under STACKTRACE:, one throwable with its frames', () => {
    const records = read(block, ['com.mysql.'])
    expect(records.map((r) => [chain(r), r.frames])).toEqual([
      [[10, 'error', ['java.net.SocketException', 'java.net.ConnectException']], ['com.mysql.']],
    ])
  })

  it('reads a bare class and a MESSAGE line with no STACKTRACE: after them as before', () => {
    const records = read(block.slice(4, 7))
    expect(records.map(chain)).toEqual([
      [1, 'error', ['java.net.SocketException']],
      [2, 'error', ['java.net.ConnectException']],
    ])
  })
})

describe('a cause whose toString() does not print its class', () => {
  it('reads Paho’s `Caused by: <message> (<reason code>)` over Paho’s frames as its MqttException, inferred', () => {
    // https://github.com/256dpi/processing-mqtt/issues/28 (test/corpus/excerpts/paho.json), in
    // the JVM's Spanish. printStackTrace prints `Caused by: ` and the cause's toString()
    // (https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/lang/Throwable.html#printStackTrace()),
    // and MqttException's is `getMessage() + " (" + reasonCode + ")"`, without its class
    // (MqttException.java in https://github.com/eclipse-paho/paho.mqtt.java).
    const records = read([
      'java.lang.RuntimeException: [MQTT] Failed to publish: Tiempo de espera excedido al esperar una respuesta del servidor',
      '\tat mqtt.MQTTClient.publish(Unknown Source)',
      'Caused by: Tiempo de espera excedido al esperar una respuesta del servidor (32000)',
      '\tat org.eclipse.paho.client.mqttv3.internal.Token.waitForCompletion(Token.java:112)',
      '\tat org.eclipse.paho.client.mqttv3.MqttToken.waitForCompletion(MqttToken.java:67)',
    ])
    expect(records.map((r) => [chain(r), r.causes.map((c) => c.message), r.classFromReason])).toEqual([
      [
        [1, null, ['java.lang.RuntimeException', 'org.eclipse.paho.client.mqttv3.MqttException']],
        ['Tiempo de espera excedido al esperar una respuesta del servidor (32000)'],
        true,
      ],
    ])
    // A frame whose source position is damaged (as redaction left it before it kept frames'
    // positions) is still Paho's frame under the line: only its method is read.
    expect(
      read([
        'java.lang.RuntimeException: [MQTT] Failed to publish',
        'Caused by: Tiempo de espera excedido al esperar una respuesta del servidor (32000)',
        '\tat org.eclipse.paho.client.mqttv3.internal.Token.waitForCompletion(Token.java:[REDACTED]',
      ]).map((r) => [chain(r), r.classFromReason]),
    ).toEqual([[[1, null, ['java.lang.RuntimeException', 'org.eclipse.paho.client.mqttv3.MqttException']], true]])
    // Not over another library's frames, nor without a reason code: the trace ends there, as before.
    for (const [cause, frame] of [
      ['Caused by: Tiempo de espera excedido (32000)', '\tat com.example.mqtt.Client.publish(Client.java:12)'],
      [
        'Caused by: Tiempo de espera excedido',
        '\tat org.eclipse.paho.client.mqttv3.MqttToken.waitForCompletion(MqttToken.java:67)',
      ],
    ] as const) {
      const found = read(['java.lang.RuntimeException: publish failed', cause, frame])
      expect(found.map((r) => [chain(r), r.classFromReason])).toEqual([
        [[1, null, ['java.lang.RuntimeException']], undefined],
      ])
    }
  })
})

describe('what the reader does not read as a failure', () => {
  it('reads no exception from a JVM command line, frames or a logger name', () => {
    // https://github.com/openboxes/openboxes/issues/1412, with an OOM flag added to its listing
    expect(
      read([
        'tomcat7  29200     1 99 15:11 ?        00:01:51 /usr/lib/jvm/default-java/bin/java -Djava.util.logging.config.file=/var/lib/tomcat7/conf/logging.properties -XX:+HeapDumpOnOutOfMemoryError -XX:OnOutOfMemoryError=/bin/kill -Dx=java.lang.OutOfMemoryError -Xmx2048m -classpath /usr/share/tomcat7/bin/bootstrap.jar org.apache.catalina.startup.Bootstrap start',
        '\tat java.lang.ClassNotFoundException.<init>(ClassNotFoundException.java:82)',
        '2016-05-25 12:29:40.274 ERROR 1 --- [nio-8082-exec-9] o.h.engine.jdbc.spi.SqlExceptionHelper   : boom',
        'SocketTimeoutException occurred when processing request: [GET] /test/index',
      ]),
    ).toEqual([])
  })

  it('reads a SOAP stack’s `…Fault` as a throwable, and no `default:` or unqualified Fault', () => {
    // https://github.com/OxalisCommunity/Oxalis-AS4/issues/90 (CXF), and words that are no throwable.
    const records = read([
      'org.apache.cxf.binding.soap.SoapFault: Connection timed out (Connection timed out)',
      'at org.apache.cxf.binding.soap.saaj.SAAJOutInterceptor$SAAJOutEndingInterceptor.handleMessage(SAAJOutInterceptor.java:221)',
      '2026-11-24 10:00:00 INFO c.e.Config - default: 30s',
      '2026-11-24 10:00:01 INFO c.e.Soap - SoapFault: none',
    ])
    expect(records.map((r) => [r.line, r.class, r.message, r.errno])).toEqual([
      [1, 'org.apache.cxf.binding.soap.SoapFault', 'Connection timed out (Connection timed out)', 'ETIMEDOUT'],
    ])
  })

  it('notes the level a handled exception was logged at, from its line or the line that owns its trace', () => {
    const records = read([
      '2026-11-22 05:00:01 DEBUG o.a.c.c.C.[.[.[/].[dispatcherServlet] - Handled: java.net.ConnectException: Connection refused',
      '2026-11-22 05:00:02 DEBUG c.e.Client - call failed, handled',
      'java.net.ConnectException: Connection refused',
      '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
      '2026-11-22 05:00:03 WARN  c.e.Client - call failed, retrying in 500 ms: java.net.ConnectException: Connection refused',
    ])
    expect(records.map((r) => [r.line, r.level, r.retried])).toEqual([
      [1, 'debug', false],
      [3, 'debug', false],
      [5, 'warn', true],
    ])
    // The line that logged a trace owns it; a line that logs its level and exception owns nothing above.
    expect(records.map((r) => r.owner)).toEqual([null, 2, null])
  })

  it('reads the level that opens a bracketed record head in any case: Apache Geode’s lower-case levels', () => {
    // https://github.com/markito/geode-docker/issues/4 (test/corpus/excerpts/geode.json), in
    // Geode's default pattern `[%level{lowerCase=true} %date{yyyy/MM/dd HH:mm:ss.SSS z} … <%thread> tid=%hexTid]`
    // (https://github.com/apache/geode, geode-log4j/src/main/resources/log4j2.xml).
    const geode = (level: string) => [
      `[${level} 2017/05/24 14:52:07.080 PDT <poolTimer-gemfire-pool-3> tid=0x6c] Error attempting to connect to 9ade546c2288:40404: `,
      'java.net.UnknownHostException: 9ade546c2288',
      '\tat java.net.InetAddress.getAllByName0(InetAddress.java:1280)',
    ]
    const levels = ['finest', 'finer', 'fine', 'config', 'info', 'warning', 'error', 'severe']
    expect(levels.map((level) => read(geode(level))[0]?.level)).toEqual([
      'trace',
      'trace',
      'debug',
      'info',
      'info',
      'warn',
      'error',
      'error',
    ])
    // A bracket that opens with a thread or a logger's name holds no level; a level word in a message is none either.
    expect(read(geode('main'))[0]?.level).toBeNull()
    expect(
      read(['[main] request failed with error java.net.ConnectException: Connection refused'])[0]?.level,
    ).toBeNull()
  })

  it('reads an attempt numbered before the last of a retry loop as retried, and the last as final', () => {
    // https://github.com/yegor256/rultor/issues/54: jcabi-aspects' @RetryOnFailure logs
    // `attempt #k/n failed with <class> in <time>: <message>`, and `attempt #k of n failed in
    // <time> (<time> waiting already) with <exception>` when verbose (its Repeater.java,
    // https://github.com/jcabi/jcabi-aspects); the last two lines are that second format.
    const records = read([
      '117:57 WARNING attempt #1/10 failed with com.jcraft.jsch.JSchException in 1s: timeout: socket is not established',
      '118:28 WARNING attempt #2/10 failed with com.jcraft.jsch.JSchException in 1s: Session.connect: java.net.SocketTimeoutException: Read timed out',
      '119:29 WARNING attempt #3/10 failed with com.jcraft.jsch.JSchException in 1s: Session.connect: java.net.SocketTimeoutException: Read timed out',
      'WARN c.e.Client - #connect(): attempt #3 of 5 failed in 2s (4s waiting already) with java.net.ConnectException: Connection refused',
      'WARN c.e.Client - #connect(): attempt #5 of 5 failed in 2s (9s waiting already) with java.net.ConnectException: Connection refused',
    ])
    expect(records.map((r) => [r.line, r.retried])).toEqual([
      [2, true],
      [3, true],
      [4, true],
      [5, false],
    ])
  })

  it('reads a negated retry announcement as the end of the retries: the failure after it is final', () => {
    // https://github.com/snowflakedb/snowflake-jdbc/issues/136 (test/corpus/excerpts/snowflake.json):
    // RestRequest logs "Stop retrying since elapsed time …" and then throws what it saved
    // (RestRequest.java, https://github.com/snowflakedb/snowflake-jdbc).
    const retriedAfter = (announcement: string) =>
      read([
        announcement,
        'Exception in thread "main" net.snowflake.client.jdbc.SnowflakeSQLException: JDBC driver encountered communication error. Message: Exception encountered for HTTP request: Connect to db.example:443 failed: connect timed out.',
        '\tat net.snowflake.client.jdbc.RestRequest.execute(RestRequest.java:323)',
      ])[0]?.retried
    expect(
      retriedAfter(
        'SEVERE: Stop retrying since elapsed time due to network issues has reached timeout. Elapsed=360,264(ms), timeout=60,000(ms)',
      ),
    ).toBe(false)
    expect(retriedAfter('WARN c.e.Client - not retrying: the call is not idempotent')).toBe(false)
    expect(retriedAfter('WARN c.e.Client - giving up retrying after 5 attempts')).toBe(false)
    // An announcement that is not negated still marks the failure as retried.
    expect(retriedAfter('WARN c.e.Client - call failed, retrying in 500 ms')).toBe(true)
    expect(retriedAfter('WARN c.e.Client - stopped the pool; retrying the call on another node')).toBe(true)
  })

  it('notes the line that owns a trace behind a journal prefix, and none for a line of codes alone', () => {
    // https://github.com/DecentralizedAmateurPagingNetwork/Core/issues/148
    // https://github.com/Staartvin/Autorank-2/issues/345
    const records = read([
      'Dec  7 12:03:35 dapnet java[16463]: 12:03:35.493 [nioEventLoopGroup-2-1] WARN  io.netty.channel.DefaultChannelPipeline - An exceptionCaught() event was fired, and it reached at the tail of the pipeline. It usually means the last handler in the pipeline did not handle the exception.',
      'Dec  7 12:03:35 dapnet java[16463]: java.io.IOException: Zu viele offene Dateien',
      'Dec  7 12:03:35 dapnet java[16463]: at sun.nio.ch.ServerSocketChannelImpl.accept0(Native Method) ~[?:1.8.0_151]',
      '[12:57:22] [pool-16-thread-1/INFO]: SQLDataStorage.executeQuery',
      '[12:57:22] [pool-16-thread-1/INFO]: SQLState: 08S01',
    ])
    expect(records.map((r) => [r.line, r.owner, r.level])).toEqual([
      [2, 1, 'warn'],
      [5, null, 'info'],
    ])
  })
})

describe('the bounds of the reader', () => {
  it('keeps the first and the last records of a long excerpt, the outermost and deepest causes of a long chain', () => {
    const many = Array.from({ length: 200 }, (_, i) => `java.lang.IllegalStateException: failure ${i}`)
    const records = read(many)
    expect(records).toHaveLength(readerBounds.records)
    expect(records[0]?.message).toBe('failure 0')
    expect(records[records.length - 1]?.message).toBe('failure 199')
    const deep = read([
      'java.lang.RuntimeException: top',
      ...Array.from({ length: 30 }, (_, i) => `Caused by: java.lang.IllegalStateException: level ${i + 1}`),
      'Caused by: java.net.ConnectException: Connection refused',
    ])
    expect(deep[0]?.causes).toHaveLength(readerBounds.causes)
    expect(deep[0]?.causes.map((c) => c.message).slice(0, 2)).toEqual(['level 1', 'level 2'])
    expect(deep[0]?.causes.at(-1)?.class).toBe('java.net.ConnectException')
  })

  it('cuts a long message in the middle, keeping the end that holds an executor state', () => {
    const task = `Task java.util.concurrent.FutureTask@5ff3710b[Not completed, task = ${'x'.repeat(600)}]`
    const [record] = read([
      `java.util.concurrent.RejectedExecutionException: ${task} rejected from java.util.concurrent.ThreadPoolExecutor@47d23cd0[Terminated, pool size = 0, active threads = 0, queued tasks = 0, completed tasks = 3666]`,
    ])
    expect(record?.message.length).toBe(readerBounds.messageChars)
    expect(record?.message).toContain('[Terminated, pool size = 0')
  })

  it('runs only regular expressions that recheck proves safe (the rest is index searches)', async () => {
    const reader = [word, bracketHead, rootPackage, retry, numberedAttempt, sourcePosition, hostLabel]
    for (const regex of [...reader, /\d/, /\r?\n$/, /\r?\n/]) {
      const flags = regex.flags.replace('g', '')
      expect({
        regex: regex.source,
        status: (await check(regex.source, flags, recheckOptions(20_000))).status,
      }).toEqual({
        regex: regex.source,
        status: 'safe',
      })
    }
  })

  it('reads hostile text in time linear in its size (no backtracking on long identifiers or many candidates)', () => {
    const identifier = `a.${'b'.repeat(200_000)}Exceptio`
    const traces = Array.from({ length: 4000 }, (_, i) =>
      i % 2 === 0 ? `ERROR Error error java.lang.Error: ${i}` : '\tat a.b.C.d(C.java:1)',
    ).join('\n')
    // The least of three runs: a busy host only ever adds time.
    const measure = (text: string) => {
      const excerpt = excerptOfText(text)
      let least = Number.POSITIVE_INFINITY
      for (let run = 0; run < 3; run++) {
        const start = performance.now()
        readExceptions(excerpt)
        least = Math.min(least, performance.now() - start)
      }
      return least
    }
    const small = measure(`${identifier.slice(0, 50_000)}\n${traces.slice(0, traces.length / 4)}`)
    const large = measure(`${identifier}\n${traces}`)
    // Four times the text, well under sixteen times the time: not quadratic. (Compared in the same run.)
    expect(large).toBeLessThan(Math.max(16 * small, 50))
  })
})
