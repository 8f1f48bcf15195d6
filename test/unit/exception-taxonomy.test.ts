import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BuiltinRulesError, builtinBranches, builtinRulesDir } from '../../src/rules/builtin-loader.js'
import { exceptionsOf, verdictOf } from '../../src/rules/exception-facts.js'
import { loadExceptionTaxonomy, taxonomyFileName } from '../../src/rules/exception-taxonomy.js'
import { readRulepack } from '../../src/rules/rule-input.js'
import { seedRulepackFile } from '../../src/rules/seed.js'
import type { ExceptionRecord } from '../../src/text/exceptions/records.js'
import { excerptOfText } from '../../src/text/excerpt.js'

// builtin-rules/exception-taxonomy.json (docs/design.md, "Exceptions and codes"): what
// classes and codes mean, inheritance, and the verdict of a record (docs/design.md, "Ranking").

const taxonomy = loadExceptionTaxonomy()
const recordsOf = (lines: readonly string[]) => exceptionsOf(excerptOfText(lines.join('\n')), taxonomy)
/** The verdict (meaning and branch) of the one record the lines hold. */
const verdict = (...lines: string[]) => {
  const records = recordsOf(lines)
  expect(records).toHaveLength(1)
  const found = verdictOf(records[0] as ExceptionRecord, taxonomy)
  return found && [found.meaning, found.branch]
}

describe('the exception taxonomy', () => {
  it('names only branches of the catalogue (built-in or seed), each meaning once', () => {
    const seed = (readRulepack(seedRulepackFile) as Array<{ branch: string }>).map((r) => r.branch)
    const branches = new Set([...builtinBranches, ...seed])
    const file = JSON.parse(readFileSync(join(builtinRulesDir, taxonomyFileName), 'utf8')) as {
      meanings: Array<{ meaning: string; branch: string | null }>
    }
    for (const { meaning, branch } of file.meanings) expect(branch === null || branches.has(branch), meaning).toBe(true)
    expect(new Set(file.meanings.map((m) => m.meaning)).size).toBe(file.meanings.length)
  })

  it('gives an unlisted subclass its parent’s meaning: NoSuchMethodError -> IncompatibleClassChangeError -> LinkageError -> TD-15', () => {
    expect(taxonomy.ancestors('java.lang.NoSuchMethodError')).toEqual([
      'java.lang.NoSuchMethodError',
      'java.lang.IncompatibleClassChangeError',
      'java.lang.LinkageError',
      'java.lang.Error',
      'java.lang.Throwable',
    ])
    expect(verdict('java.lang.NoSuchMethodError: com.example.Foo.bar()Ljava/lang/String;')).toEqual([
      'class-linkage',
      'TD-15',
    ])
    expect(
      verdict('java.lang.AbstractMethodError: Receiver class x does not define or inherit an implementation'),
    ).toEqual(['class-linkage', 'TD-15'])
  })

  it('places an unlisted class under the JDK base its name ends with, else under nothing', () => {
    // Netty's native transport throws Errors$NativeConnectException, a ConnectException it does not list here.
    expect(taxonomy.ancestors('io.netty.channel.unix.Errors$NativeConnectException').slice(0, 3)).toEqual([
      'io.netty.channel.unix.Errors$NativeConnectException',
      'java.net.ConnectException',
      'java.net.SocketException',
    ])
    expect(
      taxonomy.isA('com.mysql.cj.jdbc.exceptions.MySQLTransientConnectionException', 'java.sql.SQLException'),
    ).toBe(true)
    expect(taxonomy.ancestors('com.example.orders.LedgerException')).toEqual(['com.example.orders.LedgerException'])
    // An LDAP or Spring Security AuthenticationException is not the Cassandra driver's refused credentials.
    expect(verdict('javax.naming.AuthenticationException: [LDAP: error code 49 - Invalid Credentials]')).toBeNull()
    // A library's own connection failure is not the Cassandra driver's, whose simple name it shares.
    expect(taxonomy.ancestors('com.example.cache.CacheConnectionException')).toEqual([
      'com.example.cache.CacheConnectionException',
    ])
    expect(verdict('com.example.orders.LedgerException: ledger closed')).toBeNull()
    // Every printed throwable is a Throwable, listed or not.
    expect(taxonomy.isA('com.example.orders.LedgerException', 'java.lang.Throwable')).toBe(true)
  })

  it('reads a relocated (shaded) copy of a listed class as that class: gRPC’s Netty is Netty', () => {
    expect(taxonomy.ancestors('io.grpc.netty.shaded.io.netty.channel.ConnectTimeoutException').slice(0, 3)).toEqual([
      'io.grpc.netty.shaded.io.netty.channel.ConnectTimeoutException',
      'io.netty.channel.ConnectTimeoutException',
      'java.net.ConnectException',
    ])
    // https://github.com/AnoyiX/grpc-spring-boot-starter/issues/18
    expect(
      verdict(
        'io.grpc.StatusRuntimeException: UNAVAILABLE: io exception',
        'Caused by: io.grpc.netty.shaded.io.netty.channel.ConnectTimeoutException: connection timed out: /192.168.1.211:6565',
      ),
    ).toEqual(['downstream-timeout', 'TD-13'])
    // Only a whole package path relocates: a class merely ending with a listed simple name is not a copy of it.
    expect(taxonomy.ancestors('com.example.netty.channel.ConnectTimeoutException')).toEqual([
      'com.example.netty.channel.ConnectTimeoutException',
    ])
  })

  it('reads codes whatever the language of the message, and the vendor from the classes', () => {
    // https://github.com/enioka-Haute-Couture/jqm/issues/432 (French)
    expect(
      verdict("java.sql.SQLException: ORA-00060: dÚtection d'interblocage pendant l'attente d'une ressource"),
    ).toEqual(['database-deadlock', 'TD-14'])
    // https://github.com/t8y2/dbx/issues/511 (Chinese)
    expect(
      verdict(
        'java.sql.SQLException: ORA-12541: 无法连接。host 120.79.184.44 port 51521 中没有监听程序。 (CONNECTION_ID=cCUFCf3fRA22cE4z1fxLXg==)',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    // The form DB2's JCC driver prints in German (SQL-Fehler for SQL Error), its codes as in English.
    expect(
      verdict(
        'com.ibm.db2.jcc.am.SqlTransactionRollbackException: DB2 SQL-Fehler: SQLCODE=-911, SQLSTATE=40001, SQLERRMC=68, DRIVER=4.26.14',
      ),
    ).toEqual(['database-deadlock', 'TD-14'])
    // A PostgreSQL server message in German: its SQLSTATE, logged by Hibernate beside it, decides.
    expect(
      verdict(
        '2026-11-22 05:00:01 WARN  o.h.e.j.s.SqlExceptionHelper - SQL Error: 0, SQLState: 57P01 FATAL: Verbindung wird abgebrochen',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    // A bare number: MySQL's by the driver's classes; a number two vendors share decides only where they agree.
    expect(verdict('com.mysql.cj.jdbc.exceptions.MySQLQueryInterruptedException: x; SQL Error: 2013')).toEqual([
      'database-unreachable',
      'TD-18',
    ])
    // 1205 is MySQL's lock wait time-out and SQL Server's deadlock victim: both TD-14, the first listed meaning.
    expect(verdict('WARN SqlExceptionHelper - SQL Error: 1205')).toEqual(['lock-contention', 'TD-14'])
    expect(verdict('WARN SqlExceptionHelper - SQL Error: 1040, SQLState: HY000')).toEqual([
      'database-connection-limit',
      'TD-18',
    ])
    // MySQL's server messages decide whoever wraps them: Quartz quotes the lock wait time-out in its own exception.
    // https://github.com/quartz-scheduler/quartz/issues/759
    expect(
      verdict(
        'org.quartz.JobPersistenceException: Failure recovering jobs: Lock wait timeout exceeded; try restarting transaction',
      ),
    ).toEqual(['lock-contention', 'TD-14'])
    // SQL Server's deadlock victim (error 1205) in each variant of its message: lock, communication buffer, thread.
    for (const resources of ['lock', 'lock | communication buffer', 'thread'])
      expect(
        verdict(
          `com.microsoft.sqlserver.jdbc.SQLServerException: Transaction (Process ID 71) was deadlocked on ${resources} resources with another process and has been chosen as the deadlock victim. Rerun the transaction.`,
        ),
        resources,
      ).toEqual(['database-deadlock', 'TD-14'])
    // An errno beats the class: a ConnectException that timed out is a time-out.
    expect(verdict('java.net.ConnectException: Connection timed out (Connection timed out)')).toEqual([
      'downstream-timeout',
      'TD-13',
    ])
  })

  it('refuses a taxonomy whose meanings or parents do not resolve, naming them', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'diag-taxonomy-')), 'builtin-rules')
    cpSync(builtinRulesDir, dir, { recursive: true })
    const file = join(dir, taxonomyFileName)
    const text = readFileSync(file, 'utf8')
    // The meaning renamed where it is defined: the class that names it no longer resolves.
    writeFileSync(file, text.replace('"meaning": "stack-overflow"', '"meaning": "stack-overfow"'))
    expect(() => loadExceptionTaxonomy(dir)).toThrow(BuiltinRulesError)
    expect(() => loadExceptionTaxonomy(dir)).toThrow(
      `${file}: java.lang.StackOverflowError: unknown meaning stack-overflow`,
    )
    writeFileSync(file, text.replace('"parent": "java.lang.LinkageError"', '"parent": "java.lang.LinkError"'))
    expect(() => loadExceptionTaxonomy(dir)).toThrow(
      'java.lang.NoClassDefFoundError: parent java.lang.LinkError is not listed',
    )
    // Codes can name one component only: a second would make whose failure it is a matter of order.
    writeFileSync(
      file,
      text.replace(
        '"reroutes": {\n          "downstream-timeout": "dns-failure"\n        }',
        '"reroutes": {\n          "downstream-timeout": "dns-failure"\n        },\n        "namedByCodes": true',
      ),
    )
    expect(() => loadExceptionTaxonomy(dir)).toThrow(
      'components: a SQLSTATE or vendor code can name one component only',
    )
    // A class that means something where a component throws it must be listed (it is read by its exact name).
    writeFileSync(
      file,
      text.replace(
        '"java.util.concurrent.TimeoutException": "downstream-timeout"',
        '"java.util.concurrent.TimeOutException": "downstream-timeout"',
      ),
    )
    expect(() => loadExceptionTaxonomy(dir)).toThrow(
      'component database: class java.util.concurrent.TimeOutException is not listed',
    )
    rmSync(dir, { recursive: true, force: true })
  })
})

describe('the verdict of a record: the deepest cause decides the kind, the component decides whose', () => {
  it('reads a refused connection under a PostgreSQL driver as the database unreachable (TD-18), not TD-01', () => {
    expect(
      verdict(
        'org.postgresql.util.PSQLException: Connection to db.internal:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.',
        '\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:319)',
        'Caused by: java.net.ConnectException: Connection refused',
        '\tat java.base/sun.nio.ch.Net.connect0(Native Method)',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    // Only a frame names the driver: still the database's.
    expect(
      verdict(
        'java.net.ConnectException: Connection refused',
        '\tat java.base/sun.nio.ch.Net.pollConnect(Native Method)',
        '\tat org.postgresql.core.PGStream.createSocket(PGStream.java:243)',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    // Nothing names a component: an upstream's refusal.
    expect(
      verdict('java.net.ConnectException: Connection refused', '\tat sun.nio.ch.Net.pollConnect(Native Method)'),
    ).toEqual(['upstream-refused', 'TD-01'])
  })

  it('reads a line whose only owner is its SQLSTATE or vendor code as the database’s (taxonomy 1.5.0)', () => {
    // https://github.com/alibaba/druid/issues/5462: the Db2 driver's message goes on in a
    // line of its own behind a collector's timestamp column, with its codes and no class.
    expect(
      verdict(
        '2023-10-13T11:47:16+08:00\tor socket output stream.  Error location: Reply.fill() - socketInputStream.read (-1).  Message: Read timed out. ERRORCODE=-4499, SQLSTATE=08001',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    // A code decides whose, not the kind: a deadlock stays a deadlock, a time-out without a code nobody's.
    expect(verdict('SQL Error: 1213, SQLState: 40001')).toEqual(['database-deadlock', 'TD-14'])
    expect(verdict('java.net.SocketTimeoutException: Read timed out')).toEqual(['downstream-timeout', 'TD-13'])
  })

  it('reads a pool time-out as the pool (TD-09) unless a deeper cause says the database refused', () => {
    const hikari =
      'java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.'
    expect(
      verdict(hikari, '\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)'),
    ).toEqual(['pool-exhausted', 'TD-09'])
    expect(
      verdict(
        'org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection',
        `Caused by: ${hikari}`,
        '\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)',
        'Caused by: java.net.ConnectException: Connection refused',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
  })

  it('keeps a kind no component changes, and lets a wrapper decide only when nothing beneath it has a meaning', () => {
    expect(
      verdict(
        'org.postgresql.util.PSQLException: The connection attempt failed.',
        'Caused by: java.net.UnknownHostException: db.internal',
      ),
    ).toEqual(['dns-failure', 'TD-17'])
    expect(
      verdict(
        "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'orders'",
        'Caused by: java.lang.NullPointerException: null',
      ),
    ).toEqual(['startup-failed', 'TD-05'])
    expect(
      verdict(
        "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'orders'",
        'Caused by: java.net.BindException: Address already in use',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
  })

  it('reads the MongoDB and Cassandra drivers’ failures as the database’s (TD-18), whatever the cause beneath', () => {
    expect(
      verdict(
        'com.mongodb.MongoTimeoutException: Timed out after 30000 ms while waiting to connect. Client view of cluster state is {type=UNKNOWN, servers=[{address=mongo.internal:27017, type=UNKNOWN, state=CONNECTING, exception={com.mongodb.MongoSocketOpenException: Exception opening socket}, caused by {java.net.ConnectException: Connection refused}}]',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    // A connect time-out is the generic time-out (TD-13) unless the driver's frames or classes claim it.
    expect(
      verdict(
        'com.mongodb.MongoSocketOpenException: Exception opening socket',
        '\tat com.mongodb.internal.connection.SocketStream.open(SocketStream.java:70)',
        'Caused by: java.net.SocketTimeoutException: Connect timed out',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    expect(
      verdict(
        'com.datastax.driver.core.exceptions.NoHostAvailableException: All host(s) tried for query failed (tried: cassandra.internal/10.0.0.7:9042 (com.datastax.driver.core.exceptions.TransportException: [cassandra.internal/10.0.0.7:9042] Cannot connect))',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    expect(
      verdict(
        'com.datastax.oss.driver.api.core.AllNodesFailedException: Could not reach any contact point, make sure you have provided valid addresses',
        '\tat com.datastax.oss.driver.internal.core.util.concurrent.CompletableFutures.getUninterruptibly(CompletableFutures.java:149)',
        'Caused by: io.netty.channel.ConnectTimeoutException: connection timed out: cassandra.internal/10.0.0.7:9042',
      ),
    ).toEqual(['database-unreachable', 'TD-18'])
    expect(
      verdict('com.mongodb.MongoSecurityException: Exception authenticating MongoCredential{user=orders}'),
    ).toEqual(['database-auth-rejected', 'TD-18'])
  })

  it('reads H2’s code at the end of its message, in any language, as H2’s (deadlock, lock time-out, broken connection)', () => {
    expect(
      verdict(
        '! org.h2.jdbc.JdbcSQLException: Eine Verklemmung (Deadlock) ist aufgetreten; SQL statement:',
        '! UPDATE LEDGER SET BALANCE = ? [40001-176]',
        '! at org.h2.message.DbException.getJdbcSQLException(DbException.java:344)',
      ),
    ).toEqual(['database-deadlock', 'TD-14'])
    // The code decides before the class: H2 2.x's JdbcSQLTimeoutException is a lock time-out here, not a slow query.
    expect(verdict('org.h2.jdbc.JdbcSQLTimeoutException: Timeout trying to lock table "ORDERS" [50200-214]')).toEqual([
      'lock-contention',
      'TD-14',
    ])
    expect(verdict('org.h2.jdbc.JdbcSQLNonTransientConnectionException: Connection is broken [90067-214]')).toEqual([
      'database-unreachable',
      'TD-18',
    ])
  })

  it('reads a local address that cannot be assigned as the listener’s start-up failure on bind, an OS limit on connect', () => {
    expect(
      verdict(
        'java.lang.RuntimeException: java.net.BindException: Cannot assign requested address',
        '\tat org.example.http.Server.start(Server.java:41)',
        'Caused by: java.net.BindException: Cannot assign requested address',
        '\tat sun.nio.ch.Net.bind0(Native Method)',
        '\tat sun.nio.ch.ServerSocketChannelImpl.bind(ServerSocketChannelImpl.java:252)',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
    // The same errno on a connect: the local ports are used up.
    expect(
      verdict(
        'java.net.NoRouteToHostException: Cannot assign requested address (Address not available)',
        '\tat java.net.PlainSocketImpl.socketConnect(Native Method)',
        '\tat java.net.Socket.connect(Socket.java:607)',
      ),
    ).toEqual(['local-address-unavailable', 'TD-06'])
    // Only that errno is the listener's: a listener out of file descriptors is still an OS limit.
    expect(
      verdict(
        'java.io.IOException: Too many open files',
        '\tat sun.nio.ch.ServerSocketChannelImpl.accept0(Native Method)',
        '\tat sun.nio.ch.ServerSocketChannelImpl.accept(ServerSocketChannelImpl.java:421)',
      ),
    ).toEqual(['os-limit', 'TD-06'])
  })

  it('reads a bind refused by its JDK frames, not its class: EACCES and EADDRNOTAVAIL at sun.nio.ch.Net.bind are the listener’s start-up failure', () => {
    // Net.bind/bind0 bind an address, Net.connect/connect0 connect (sun/nio/ch/Net.java in
    // https://github.com/openjdk/jdk); bind(2)'s EACCES is a protected address, its
    // EADDRNOTAVAIL an address that is not local (man2/bind.2 in https://github.com/mkerrisk/man-pages).
    expect(
      verdict(
        'java.net.BindException: Cannot assign requested address',
        '\tat sun.nio.ch.Net.bind0(Native Method)',
        '\tat sun.nio.ch.Net.bind(Net.java:437)',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
    expect(
      verdict(
        'java.net.SocketException: Permission denied',
        '\tat sun.nio.ch.Net.bind0(Native Method)',
        '\tat sun.nio.ch.Net.bind(Net.java:433)',
        '\tat sun.nio.ch.ServerSocketChannelImpl.bind(ServerSocketChannelImpl.java:223)',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
    // The same class's connect is no bind, and a permission refused elsewhere names no branch.
    expect(
      verdict(
        'java.net.ConnectException: Cannot assign requested address',
        '\tat sun.nio.ch.Net.connect0(Native Method)',
        '\tat sun.nio.ch.Net.connect(Net.java:579)',
      ),
    ).toEqual(['local-address-unavailable', 'TD-06'])
    expect(
      verdict(
        'java.io.FileNotFoundException: /var/log/app/server.log (Permission denied)',
        '\tat java.io.FileOutputStream.open0(Native Method)',
      ),
    ).toEqual(['permission-denied', null])
  })

  it('reads a BindException whose message names the bind call as the listener’s start-up failure, without its frames', () => {
    // The JDK names the call that failed in the message: on Windows sun.nio.ch.Net.bind0
    // throws `NET_ThrowNew(env, WSAGetLastError(), "bind")`, printed "<error text>: bind"
    // (src/java.base/windows/native/libnio/ch/Net.c and libnet/net_util_md.c in
    // https://github.com/openjdk/jdk); JDK 8's PlainSocketImpl on Unix throws a BindException
    // "<error text> (Bind failed)". A cause quoted in its wrapper's message has no frames.
    expect(
      verdict(
        'org.springframework.beans.factory.BeanCreationException: Error creating bean with name ' +
          "'server' defined in class path resource [com/example/ServerConfig.class]: Invocation of init method failed; " +
          'nested exception is java.net.BindException: [/10.0.0.7:27777] Cannot assign requested address: bind',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
    expect(verdict('java.net.BindException: Cannot assign requested address (Bind failed)')).toEqual([
      'port-in-use',
      'TD-05',
    ])
    // The same error text on a connect stays the OS limit (Windows names the call `connect`).
    expect(verdict('java.net.BindException: Cannot assign requested address: connect')).toEqual([
      'local-address-unavailable',
      'TD-06',
    ])
    expect(verdict('java.net.BindException: Cannot assign requested address (connect failed)')).toEqual([
      'local-address-unavailable',
      'TD-06',
    ])
  })

  it('reads a bind failed under RMI’s ExportException as the listener’s start-up failure: exporting is listening', () => {
    // sun.rmi.transport.tcp.TCPTransport.listen() creates the RMI (JMX connector) server socket
    // and wraps its BindException in `new ExportException("Port already in use: " + port, e)`, its
    // other IOExceptions in "Listen failed on port: " (src/java.rmi/share/classes/sun/rmi/transport/
    // tcp/TCPTransport.java in https://github.com/openjdk/jdk); RemoteException prints its detail
    // after "; nested exception is:". https://github.com/igniterealtime/openfire-pade-plugin/issues/169
    // (test/corpus/excerpts/openfire.json).
    expect(
      verdict(
        'java.rmi.server.ExportException: Port already in use: 1099; nested exception is: ',
        '        java.net.BindException: Cannot assign requested address (Bind failed)',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
    expect(
      verdict(
        'java.rmi.server.ExportException: Listen failed on port: 9999; nested exception is: ',
        '        java.net.SocketException: Cannot assign requested address',
      ),
    ).toEqual(['port-in-use', 'TD-05'])
    // The same errno on a client's connect stays the OS limit: only the export is a listener.
    expect(
      verdict(
        'java.rmi.ConnectIOException: error during JRMP connection establishment; nested exception is: ',
        '        java.net.NoRouteToHostException: Cannot assign requested address',
      ),
    ).toEqual(['local-address-unavailable', 'TD-06'])
  })

  it('reads Bitronix’s XA pool still empty after its acquisition time-out as an exhausted pool (TD-09)', () => {
    // BTM's XAPool throws BitronixRuntimeException("XA pool of resource " + uniqueName + " still
    // empty after " + acquisitionTimeout + "s wait time") when no pooled connection came back in
    // time (btm/src/main/java/bitronix/tm/resource/common/XAPool.java in
    // https://github.com/scalar-labs/btm); https://github.com/scalar-labs/btm/issues/24
    // (test/corpus/excerpts/bitronix.json).
    expect(
      verdict(
        'bitronix.tm.recovery.RecoveryException: cannot start recovery on a PoolingDataSource containing an XAPool of resource dtfDataSource with 7 connection(s) (0 still available)',
        '    at bitronix.tm.resource.jdbc.PoolingDataSource.startRecovery(PoolingDataSource.java:288) ~[btm-2.1.3.jar:2.1.3]',
        'Caused by: bitronix.tm.internal.BitronixRuntimeException: XA pool of resource dtfDataSource still empty after 1s wait time',
      ),
    ).toEqual(['pool-exhausted', 'TD-09'])
    // Its other runtime failures say nothing of the pool.
    expect(verdict('bitronix.tm.internal.BitronixRuntimeException: error logging status')).toBeNull()
  })

  it('reads SSH, SMB and media-server clients’ own time-out exceptions as a call past its time-out (TD-13)', () => {
    // Kurento's client throws org.kurento.commons.TimeoutRuntimeException, a RuntimeException for
    // a wait past its time-out (kurento-commons, https://github.com/Kurento/kurento);
    // https://github.com/OpenVidu/openvidu/issues/280 (test/corpus/excerpts/openvidu.json).
    expect(
      verdict(
        'Caused by: org.kurento.commons.TimeoutRuntimeException: [KurentoClient]  Timeout trying to connect to websocket server ws://localhost:8888/kurento',
        '        at org.kurento.jsonrpc.client.AbstractJsonRpcClientWebSocket.connectIfNecessary(AbstractJsonRpcClientWebSocket.java:857)',
      ),
    ).toEqual(['downstream-timeout', 'TD-13'])
    // jCIFS's Transport.connect throws TransportException("Connection timeout") when its connect
    // thread does not return in time; jcifs-ng throws its subclass ConnectionTimeoutException
    // (https://github.com/codelibs/jcifs, src/main/java/jcifs/util/transport/);
    // https://github.com/hierynomus/smbj/issues/414 (test/corpus/excerpts/jcifs.json).
    expect(
      verdict(
        'jcifs.util.transport.TransportException: Connection timeout',
        '\tat jcifs.util.transport.Transport.connect(Transport.java:174)',
      ),
    ).toEqual(['downstream-timeout', 'TD-13'])
    expect(verdict('jcifs.util.transport.ConnectionTimeoutException: Connection timeout')).toEqual([
      'downstream-timeout',
      'TD-13',
    ])
    // sshj's Promise.retrieve chains `new TimeoutException("Timeout expired…")` into the
    // promise's exception type (https://github.com/hierynomus/sshj, net/schmizz/concurrent/Promise.java);
    // https://github.com/hierynomus/sshj/issues/952 (test/corpus/excerpts/sshj.json).
    expect(verdict(' net.schmizz.sshj.transport.TransportException: Timeout expired: 30000 MILLISECONDS')).toEqual([
      'downstream-timeout',
      'TD-13',
    ])
    // Their other failures keep no meaning: a transport closed is no time-out.
    expect(verdict('jcifs.util.transport.TransportException: Transport is disconnected Transport1')).toBeFalsy()
    expect(verdict('net.schmizz.sshj.transport.TransportException: Broken transport; encountered EOF')).toBeFalsy()
  })

  it('reads work rejected by a terminated executor as a shutdown, which supports no branch', () => {
    // https://github.com/flightstats/hub/issues/531
    expect(
      verdict(
        'java.util.concurrent.RejectedExecutionException: Task java.util.concurrent.FutureTask@5ff3710b rejected from java.util.concurrent.ThreadPoolExecutor@47d23cd0[Terminated, pool size = 0, active threads = 0, queued tasks = 0, completed tasks = 3666]',
      ),
    ).toEqual(['shutdown-in-progress', null])
    expect(
      verdict(
        'org.springframework.core.task.TaskRejectedException: Executor [java.util.concurrent.ThreadPoolExecutor@4b22cc13[Running, pool size = 1, active threads = 1, queued tasks = 16, completed tasks = 263]] did not accept task',
      ),
    ).toEqual(['executor-saturated', 'TD-10'])
  })
})
