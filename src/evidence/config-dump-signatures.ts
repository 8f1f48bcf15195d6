// Configuration dumps where the key names the secret and the value sits elsewhere on the
// line (docs/design.md, "Secret redaction"): the WildFly CLI's `"password" => "…"`, a
// secret key whose object holds the value (`"spring.datasource.password":{"value":"…"}`),
// a field that names the secret next to the field holding it (`{"name": "DB_PASSWORD",
// "value": "…"}`, `<property name="password" value="…"/>`, `(name=password, value=…)`), and
// an XML element named by its attribute (`<Set name="password">…</Set>`). Values on the
// lines after the key are values-on-next-lines.ts's.
import type { SecretSignature } from './secret-signatures.js'
import {
  cookieMarkers,
  cookieName,
  idStart,
  keyInIdentifier,
  keyMarkers,
  mask,
  maskValue,
  separator,
  value,
} from './secret-words.js'

/** A field that names something: the secret is its value. */
const namingField = `["']?(?:name|key|property|param)["']?`
/** A field that holds the value of the field before it. */
const valueField = `["']?(?:value|default)["']?`

export const configDumpSignatures: readonly SecretSignature[] = [
  // DMR as the JBoss/WildFly CLI prints it: strings are quoted, so `undefined` and numbers
  // are no value; `expression "${…}"` may carry a default, so it is masked too.
  {
    id: 'cli-arrow',
    origin: 'logs: JBoss/WildFly management CLI output ("password" => "…", "clear-text" => "…")',
    pattern: new RegExp(
      `${idStart}(${keyInIdentifier}"\\s{0,5}=>\\s{0,5}(?:expression\\s{1,5})?")(?:[^"\\\\]|\\\\.){0,4096}"`,
      'gi',
    ),
    replacement: `$1${mask}"`,
    markers: keyMarkers,
    requires: '=>',
  },
  // The actuator's /env and WildFly's nested credential-reference, on one line.
  {
    id: 'nested-value',
    origin: 'logs: a secret key whose object holds the value (Spring Boot actuator /env)',
    pattern: new RegExp(
      `${idStart}(${keyInIdentifier}["']?\\s{0,5}${separator}\\s{0,5}\\{\\s{0,5}["']?(?:value|clear-text)["']?\\s{0,5}${separator}\\s{0,5})${value}`,
      'gi',
    ),
    replacement: maskValue,
    markers: keyMarkers,
    requires: '{',
  },
  // name/value pairs: Kubernetes env vars, property lists, cookies as objects, Spring's
  // <property>, Jetty's <Property default=…>, the CLI's write-attribute(name=…, value=…).
  {
    id: 'named-value',
    origin: 'logs: a field naming a secret next to the field holding it (Kubernetes env, XML attributes)',
    pattern: new RegExp(
      `${idStart}(${namingField}\\s{0,5}${separator}\\s{0,5}["']?(?:${keyInIdentifier}|${cookieName})["']?\\s{0,5}[,;]?\\s{0,5}${valueField}\\s{0,5}${separator}\\s{0,5})${value}`,
      'gi',
    ),
    replacement: maskValue,
    markers: [...keyMarkers, ...cookieMarkers],
  },
  // <Set name="KeyStorePassword">…</Set>, <entry key="db.password">…</entry>. The match starts at `<`.
  {
    id: 'xml-named-element',
    origin: 'logs: an XML element whose name attribute names a secret (Jetty, JBoss, java.util.Properties)',
    pattern: new RegExp(
      `(<[\\w:.-]{1,64}\\s{1,5}(?:name|key|id)\\s{0,5}=\\s{0,5}["']${keyInIdentifier}["']\\s{0,5}>)[^<\\r\\n]{1,4096}`,
      'gi',
    ),
    replacement: `$1${mask}`,
    markers: keyMarkers,
    requires: '<',
  },
]
