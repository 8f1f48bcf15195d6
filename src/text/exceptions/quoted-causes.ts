import { throwableAt } from './throwable-names.js'
import type { Building } from './throwables.js'

// Client libraries that wrap an I/O failure in an exception of their own whose message
// quotes the cause's message. When the log shows no `Caused by:` line (a logger that prints
// the message alone, a window that cut the trace), the quoted message is all that is left of
// the cause. One cause can be told from its message alone: the JDK throws
// `UnknownHostException` with the host name as its whole message when a name does not
// resolve (`new UnknownHostException(host)` in java.net.InetAddress,
// https://github.com/openjdk/jdk/blob/master/src/java.base/share/classes/java/net/InetAddress.java;
// with the resolver's reason after it, `host: Name or service not known`, the errno table
// reads it already, errno-texts.ts). Each wrapper with where its code quotes the cause:
// - the AWS SDK for Java 1.x, `new SdkClientException("Unable to execute HTTP request: " +
//   e.getMessage(), e)` (and `AmazonClientException` before 1.11),
//   https://github.com/aws/aws-sdk-java/blob/master/aws-java-sdk-core/src/main/java/com/amazonaws/http/AmazonHttpClient.java
// - the AWS SDK for Java 2.x, `SdkClientException.create("Unable to execute HTTP request: " +
//   lastException.getMessage(), lastException)`,
//   https://github.com/aws/aws-sdk-java-v2/blob/master/core/sdk-core/src/main/java/software/amazon/awssdk/core/internal/http/pipeline/stages/utils/RetryableStageHelper.java
// - Feign, `format("%s executing %s %s", cause.getMessage(), request.httpMethod(), request.url())`,
//   https://github.com/OpenFeign/feign/blob/master/core/src/main/java/feign/FeignException.java
// - Spring's RestTemplate, `new ResourceAccessException("I/O error on " + method.name() +
//   " request for \"" + url + "\": " + ex.getMessage(), ex)` (a URL holds no unescaped quote),
//   https://github.com/spring-projects/spring-framework/blob/main/spring-web/src/main/java/org/springframework/web/client/RestTemplate.java
// - dom4j 1.x, whose DocumentException prints `super.getMessage() + " Nested exception: " +
//   nestedException.getMessage()`, and whose SAXReader wraps the parser's exception with its
//   message, https://github.com/dom4j/dom4j/blob/master/src/main/java/org/dom4j/DocumentException.java
//   (a DTD fetched offline: `<host> Nested exception: <host>`)
// - Flyway, `new FlywaySqlException("Unable to obtain connection from database" +
//   getDataSourceInfo(dataSource, true) + ": " + e.getMessage(), e)` around the SQLException of
//   `DataSource.getConnection()`, the info being ` (<JDBC URL>) for user '<user>'`,
//   https://github.com/flyway/flyway/blob/main/flyway-core/src/main/java/org/flywaydb/core/internal/jdbc/JdbcUtils.java.
//   That cause is the driver's own exception, and the JDBC URL names the driver
//   (`jdbcDriverExceptions`): its message is read as that class's (pgjdbc's `The connection
//   attempt failed.`, a PSQLException's, the taxonomy's database unreachable).

interface QuotingWrapper {
  class: string
  /** What precedes the cause's message, and what follows it ('' for the end of the message). */
  before: string
  /** Where the cause's message starts after `before`, when a variable part (a URL) comes first. */
  from?: string
  after: string
  /** The quoted cause is the exception of the JDBC driver the message's URL names (`jdbcDriverExceptions`). */
  driverException?: true
}

const awsPrefix = 'Unable to execute HTTP request: '

const wrappers: readonly QuotingWrapper[] = [
  { class: 'com.amazonaws.SdkClientException', before: awsPrefix, after: '' },
  { class: 'com.amazonaws.AmazonClientException', before: awsPrefix, after: '' },
  { class: 'software.amazon.awssdk.core.exception.SdkClientException', before: awsPrefix, after: '' },
  { class: 'feign.RetryableException', before: '', after: ' executing ' },
  {
    class: 'org.springframework.web.client.ResourceAccessException',
    before: 'I/O error on ',
    from: '": ',
    after: '',
  },
  { class: 'org.dom4j.DocumentException', before: '', from: ' Nested exception: ', after: '' },
  {
    class: 'org.flywaydb.core.internal.exception.FlywaySqlException',
    before: 'Unable to obtain connection from database (',
    from: ': ',
    after: '',
    driverException: true,
  },
]

/**
 * The exception a JDBC driver throws, by the URL prefix it accepts: pgjdbc accepts
 * `jdbc:postgresql:` (org.postgresql.Driver) and throws PSQLException,
 * https://github.com/pgjdbc/pgjdbc/blob/master/pgjdbc/src/main/java/org/postgresql/Driver.java.
 */
const jdbcDriverExceptions: ReadonlyArray<readonly [urlPrefix: string, exception: string]> = [
  ['(jdbc:postgresql:', 'org.postgresql.util.PSQLException'],
]

/** One label of a host name (RFC 1123): letters, digits and inner hyphens, at most 63. */
export const hostLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/
const digits = /^\d+$/

/**
 * Whether the quoted text is a host name that was looked up: a dotted one (not an IPv4
 * literal, never looked up), or a single label (a service name, `knowledge-server`) that the
 * wrapper's message shows as its URL's host. A bare word alone (`null`, the message of a
 * cause that had none) is not one.
 */
function isLookedUpHost(quoted: string, message: string): boolean {
  const labels = (quoted.endsWith('.') ? quoted.slice(0, -1) : quoted).split('.')
  if (quoted.length > 253 || !labels.every((label) => hostLabel.test(label))) return false
  if (labels.length > 1) return !(labels.length === 4 && labels.every((label) => digits.test(label)))
  const url = `://${quoted}`
  const at = message.indexOf(url)
  const next = at === -1 ? undefined : message.charAt(at + url.length)
  return next === '' || next === '/' || next === ':'
}

/** The cause's message a listed wrapper's message quotes, or null. */
function quotedCause(wrapper: QuotingWrapper, message: string): string | null {
  if (!message.startsWith(wrapper.before)) return null
  let rest = message.slice(wrapper.before.length)
  if (wrapper.from !== undefined) {
    const at = rest.indexOf(wrapper.from)
    if (at === -1) return null
    rest = rest.slice(at + wrapper.from.length)
  }
  const end = wrapper.after === '' ? rest.length : rest.indexOf(wrapper.after)
  return end === -1 ? null : rest.slice(0, end).trim()
}

/**
 * The cause a listed wrapper's message shows when the log shows none of its own: an
 * `UnknownHostException` for a host name alone, the driver's exception for Flyway's quote of
 * a JDBC driver's message. Null for anything else (the other causes' words are read from the
 * wrapper's message as they stand).
 */
export function quotedCauseOf(wrapper: Building): Building | null {
  const name = wrapper.class ?? ''
  // A relocated (shaded) copy ends with the listed class's whole name (`com.dotcms.repackage.org.dom4j.…`).
  const listed = wrappers.find((w) => name === w.class || name.endsWith(`.${w.class}`))
  const quoted = listed ? quotedCause(listed, wrapper.message) : null
  // A class name is a cause's `toString()` (one without a message), never a host or a driver's words.
  if (!listed || quoted === null || quoted.length === 0 || throwableAt(quoted) !== null) return null
  if (listed.driverException) {
    const driver = jdbcDriverExceptions.find(([prefix]) => wrapper.message.includes(prefix))
    return driver ? { class: driver[1], message: quoted, frames: [], implied: true } : null
  }
  if (!isLookedUpHost(quoted, wrapper.message)) return null
  return { class: 'java.net.UnknownHostException', message: quoted, frames: [], implied: true }
}
