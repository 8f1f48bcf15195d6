/**
 * MySQL Connector/J 5's nested exception block, as a Maven build quoted it
 * (https://github.com/cBioPortal/cbioportal/issues/3, test/corpus/excerpts/cbioportal.json):
 * `Util.stackTraceToString` prints the nested throwable's class, `MESSAGE: ` and its message,
 * then `STACKTRACE:` and its printStackTrace()
 * (https://github.com/mysql/mysql-connector-j/blob/5.1/src/com/mysql/jdbc/Util.java).
 * The reader's test and the rules' test read the same lines.
 */
export const mysqlNestedBlock: readonly string[] = [
  '[ERROR] Failed to execute goal org.codehaus.mojo:sql-maven-plugin:1.5:execute (default) on project core: Communications link failure due to underlying exception:',
  '[ERROR]',
  '[ERROR] ** BEGIN NESTED EXCEPTION **',
  '[ERROR]',
  '[ERROR] java.net.SocketException',
  '[ERROR] MESSAGE: java.net.ConnectException: Connection refused',
  '[ERROR]',
  '[ERROR] STACKTRACE:',
  '[ERROR]',
  '[ERROR] java.net.SocketException: java.net.ConnectException: Connection refused',
  '[ERROR] at com.mysql.jdbc.StandardSocketFactory.connect(StandardSocketFactory.java:156)',
  '[ERROR] at com.mysql.jdbc.MysqlIO.<init>(MysqlIO.java:276)',
]
