import type { ReasonAt } from './jvm-reasons.js'

// A client library's own message printed without its class. First a JDBC driver's own
// connection-failure message: a tool that logs only `getMessage()` (DBeaver's Eclipse log:
// `!MESSAGE Fehler beim Herstellen der TCP/IP-Verbindung mit dem Host '…', Port 1433. …`). Microsoft's SQL Server driver throws
// its SQLServerException with this message template, `R_tcpipConnectionFailed`, and SQLSTATE
// 08001, in the language of the JVM: English in
// https://github.com/microsoft/mssql-jdbc/blob/main/src/main/java/com/microsoft/sqlserver/jdbc/SQLServerResource.java,
// its translations in the SQLServerResource_<language>.java files that Microsoft published in
// the open-source repository, https://github.com/microsoft/mssql-jdbc/tree/2b801fc30d1249e537c27a49958f24c98ea34571/src/main/java/com/microsoft/sqlserver/jdbc
// (2017-08-14, "Added multiple localization files for error messages"). Written here as
// java.text.MessageFormat prints them (`''` is one quote); `{n}` are the host, port and error.

export const sqlServerException = 'com.microsoft.sqlserver.jdbc.SQLServerException'

const tcpipConnectionFailed: readonly string[] = [
  'The TCP/IP connection to the host {0}, port {1} has failed. Error: "{2}".',
  "Fehler beim Herstellen der TCP/IP-Verbindung mit dem Host '{0}', Port {1}. Fehler: '{2}'.",
  'No se pudo realizar la conexión TCP/IP al host {0}, puerto {1}. Error: "{2}".',
  "Échec de la connexion TCP/IP à l'hôte {0}, port {1}. Erreur : « {2} ».",
  'La connessione TCP/IP all\'host {0}, porta {1} non è riuscita. Errore: "{2}".',
  'ホスト {0}、ポート {1} への TCP/IP 接続が失敗しました。エラー: "{2}"。',
  '호스트 {0}, 포트 {1}에 대한 TCP/IP 연결에 실패했습니다. 오류: "{2}".',
  'Falha na conexão TCP/IP com o host {0}, porta {1}. Erro: "{2}".',
  'Не удалось установить соединение TCP/IP к серверу {0} по порту {1}. Ошибка: "{2}".',
  'TCP/IP-anslutningen till värddatorn {0}, port {1} misslyckades. Fel: "{2}".',
  '通过端口 {1} 连接到主机 {0} 的 TCP/IP 连接失败。错误:“{2}”。',
  '連接到主機 {0} (連接埠 {1}) 的 TCP/IP 連接已經失敗。錯誤: "{2}"。',
]

/**
 * A template's fixed parts up to its last argument (the error, which may hold anything):
 * a line holds the message when they appear on it in order.
 */
const partsOf = (template: string): string[] => {
  const parts = template.split(/\{\d\}/)
  return parts.slice(0, parts.length - 1).filter((part) => part.length > 0)
}

// MySQL Connector/J's link failure when the server never answered:
// `CommunicationsException.ServerPacketTimingInfoNoRecv` in
// https://github.com/mysql/mysql-connector-j/blob/cf2917ea44ae2e43a4514a33771035aa99de73bf/src/main/resources/com/mysql/cj/LocalizedErrorMessages.properties,
// the second line of a CommunicationsException's message (after `Communications link
// failure`), which a logger that cut the message at its first line break prints alone. Its
// argument (the milliseconds) is in the middle, so both fixed parts are read.
export const mysqlCommunicationsException = 'com.mysql.cj.jdbc.exceptions.CommunicationsException'
const serverPacketTimingInfoNoRecv = [
  'The last packet sent successfully to the server was ',
  ' milliseconds ago. The driver has not received any packets from the server.',
]

// Apache HttpClient's connect failure, logged by a product that prints only `getMessage()`
// (StreamPark's job watcher: `errorStack=Connect to http://…:56651 [/172.18.17.222] failed:
// 拒绝连接.`). HttpClient 4.3+ builds the message of both HttpHostConnectException and
// ConnectTimeoutException as `"Connect to " + host + " " + Arrays.asList(remoteAddresses) +
// " failed: " + cause.getMessage()`,
// https://github.com/apache/httpcomponents-client/blob/4.5.x/httpclient/src/main/java/org/apache/http/conn/HttpHostConnectException.java
// and ConnectTimeoutException.java beside it; HttpClient 5 the same in
// https://github.com/apache/httpcomponents-client/blob/master/httpclient5/src/main/java/org/apache/hc/client5/http/impl/ConnectExceptionSupport.java.
// The two classes share the template, so it names only what both are, an IOException; the
// cause's message after `failed: ` (the OS's text for the errno, in the host's language, or
// the JDK's `connect timed out`) decides the failure, as on any IOException. The address list
// is InetAddress's `host/address`, so its `/` inside the brackets is required: a sentence
// that merely says `Connect to … failed` is not this message.
const httpClientConnectFailed = ['Connect to ', ' [', '/', '] failed: ']

const templates: ReadonlyArray<{ class: string; parts: readonly string[]; word?: string }> = [
  ...tcpipConnectionFailed.map((template) => ({ class: sqlServerException, parts: partsOf(template) })),
  { class: mysqlCommunicationsException, parts: serverPacketTimingInfoNoRecv },
  // `connect to` is in many sentences; the end of the address list is rarer.
  { class: 'java.io.IOException', parts: httpClientConnectFailed, word: '] failed: ' },
]

/** The candidate words (the automaton folds ASCII case) that find a line holding one: each template's longest part. */
export const driverMessageWords: readonly string[] = templates.map(
  ({ parts, word }) => word ?? (parts.reduce((a, b) => (b.trim().length > a.trim().length ? b : a)).trim() as string),
)

/** The driver exception whose own message template `text` holds, from where the message starts. */
export function driverMessageAt(text: string): ReasonAt | null {
  for (const template of templates) {
    const start = text.indexOf(template.parts[0] as string)
    if (start === -1) continue
    let at = start
    const found = template.parts.every((part) => {
      const i = text.indexOf(part, at)
      at = i + part.length
      return i !== -1
    })
    if (found) return { class: template.class, message: text.slice(start).trim(), start }
  }
  return null
}
