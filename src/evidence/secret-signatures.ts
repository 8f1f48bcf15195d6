// The secrets redaction removes from every log line (docs/design.md, "Secret redaction").
//
// Vendor token shapes follow the rule sets of gitleaks (its default configuration, MIT) and
// secretlint's recommended preset (MIT), whose ids each entry names as its origin; the
// expressions are written here, not copied, because each must (1) run over every marked
// line of a 512 KiB excerpt with a linear-time proof by recheck (test/unit/redact.test.ts),
// which their unbounded `+` and `*` do not have, and (2) keep the words around a secret
// readable, which needs capture groups their detectors do not offer. The key/value forms
// are this service's own: logs of JVM servers carry credentials in URLs, JVM arguments,
// command lines, JSON, XML and Python reprs rather than in source files.
//
// Every quantifier is bounded. A token shape that could begin anywhere inside a long run of
// its own characters starts with a lookbehind that refuses such a start, so a run is tried
// once, not once per position (the JWT rule took 3.1 s on 512 KiB of `-eyJ` before).

import { configDumpSignatures } from './config-dump-signatures.js'
import {
  cookieMarkers,
  cookieName,
  idStart,
  keyInIdentifier,
  keyMarkers,
  mask,
  maskValue,
  secretKey,
  value,
} from './secret-words.js'

export { mask } from './secret-words.js'

export interface SecretSignature {
  id: string
  /** Where the shape comes from: a gitleaks or secretlint rule id, or `logs` (ours). */
  origin: string
  pattern: RegExp
  replacement: string | ((match: string, ...groups: string[]) => string)
  /** Words (any case) a line must hold for this signature to apply: the redaction prefilter. */
  markers: readonly string[]
  /** Text (this case) every match holds: a line without it is not tried (cheaper than the expression). */
  requires?: string
}

/** Not inside a run of token characters: the token's start is the run's start. */
const tokenStart = '(?<![A-Za-z0-9_-])'

const token = (id: string, origin: string, source: string, markers: string[], kind: string): SecretSignature => ({
  id,
  origin,
  pattern: new RegExp(`${tokenStart}${source}`, 'g'),
  replacement: `${mask}-${kind}`,
  markers,
})

/**
 * Not a stack frame's source position, `(Token.java:112)`: the key/value rule would read
 * `Token.java` as a key and `112)` as its value, and a frame of any class named with a
 * secret word (Paho's `internal.Token`, the JDK's `StringTokenizer`, a `PasswordEncoder`)
 * would lose its line number and parenthesis, and with them its place in the trace
 * (docs/design.md, "Secret redaction"). Only a JVM source file's name in parentheses with
 * digits and a `)` that no word runs on from is exempt; what follows the `)` is read by
 * every rule as usual.
 */
const notFramePosition = '(?!(?<=\\()[\\w-]{1,160}\\.(?:java|kt|scala|groovy):\\d{1,9}\\)(?!\\w))'

export const secretSignatures: readonly SecretSignature[] = [
  token(
    'jwt',
    'gitleaks: jwt; secretlint: none',
    'eyJ[A-Za-z0-9_-]{4,4096}\\.eyJ[A-Za-z0-9_-]{4,8192}\\.[A-Za-z0-9_-]{0,4096}',
    ['eyJ'],
    'JWT',
  ),
  token(
    'aws-access-key-id',
    'gitleaks: aws-access-token; secretlint: @secretlint/secretlint-rule-aws',
    '(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])',
    ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ANVA', 'AIPA', 'A3T'],
    'AWS-KEY',
  ),
  token(
    'github-token',
    'gitleaks: github-pat, github-oauth, github-app-token, github-refresh-token, github-fine-grained-pat; secretlint: @secretlint/secretlint-rule-github',
    '(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})',
    ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    'GITHUB-TOKEN',
  ),
  token('gitlab-token', 'gitleaks: gitlab-pat', 'glpat-[A-Za-z0-9_-]{20,255}', ['glpat-'], 'GITLAB-TOKEN'),
  token(
    'slack-token',
    'gitleaks: slack-bot-token, slack-user-token, slack-app-token; secretlint: @secretlint/secretlint-rule-slack',
    'xox[abposre]-[A-Za-z0-9-]{10,255}',
    ['xox'],
    'SLACK-TOKEN',
  ),
  {
    id: 'slack-webhook',
    origin: 'gitleaks: slack-webhook-url; secretlint: @secretlint/secretlint-rule-slack',
    pattern: /(hooks\.slack\.com\/(?:services|workflows)\/)[A-Za-z0-9+/_-]{20,255}/g,
    replacement: `$1${mask}`,
    markers: ['hooks.slack.com'],
  },
  token(
    'stripe-key',
    'gitleaks: stripe-access-token',
    '[rs]k_(?:live|test)_[A-Za-z0-9]{10,247}',
    ['sk_live', 'sk_test', 'rk_live', 'rk_test'],
    'STRIPE-KEY',
  ),
  token(
    'gcp-api-key',
    'gitleaks: gcp-api-key; secretlint: @secretlint/secretlint-rule-gcp',
    'AIza[A-Za-z0-9_-]{35}',
    ['AIza'],
    'GOOGLE-KEY',
  ),
  token(
    'npm-token',
    'gitleaks: npm-access-token; secretlint: @secretlint/secretlint-rule-npm',
    'npm_[A-Za-z0-9]{36}',
    ['npm_'],
    'NPM-TOKEN',
  ),
  token(
    'sendgrid-key',
    'gitleaks: sendgrid-api-token; secretlint: @secretlint/secretlint-rule-sendgrid',
    'SG\\.[A-Za-z0-9_-]{16,64}\\.[A-Za-z0-9_-]{16,64}',
    ['SG.'],
    'SENDGRID-KEY',
  ),
  token(
    'openai-key',
    'gitleaks: openai-api-key; secretlint: @secretlint/secretlint-rule-openai',
    'sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,255}',
    ['sk-'],
    'OPENAI-KEY',
  ),
  token(
    'vault-token',
    'gitleaks: vault-service-token, vault-batch-token',
    'hv[sb]\\.[A-Za-z0-9_-]{24,255}',
    ['hvs.', 'hvb.'],
    'VAULT-TOKEN',
  ),
  token(
    'pypi-token',
    'gitleaks: pypi-upload-token',
    'pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,255}',
    ['pypi-'],
    'PYPI-TOKEN',
  ),
  token(
    'docker-hub-pat',
    'gitleaks: none; Docker Hub',
    'dckr_pat_[A-Za-z0-9_-]{20,255}',
    ['dckr_pat_'],
    'DOCKER-TOKEN',
  ),
  token(
    'shopify-token',
    'gitleaks: shopify-access-token, shopify-custom-access-token, shopify-private-app-access-token, shopify-shared-secret',
    'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}',
    ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    'SHOPIFY-TOKEN',
  ),
  token(
    'digitalocean-token',
    'gitleaks: digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token',
    'do[opr]_v1_[a-f0-9]{64}',
    ['_v1_'],
    'DIGITALOCEAN-TOKEN',
  ),
  token(
    'grafana-token',
    'gitleaks: grafana-service-account-token, grafana-cloud-api-token',
    '(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})',
    ['glsa_', 'glc_'],
    'GRAFANA-TOKEN',
  ),
  token('postman-key', 'gitleaks: postman-api-token', 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}', ['PMAK-'], 'POSTMAN-KEY'),
  token(
    'databricks-token',
    'gitleaks: databricks-api-token',
    'dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])',
    ['dapi'],
    'DATABRICKS-TOKEN',
  ),
  {
    id: 'azure-sas-signature',
    origin: 'logs: Azure shared access signature (sig= of a SAS URL or connection string)',
    pattern: /([?&;]sig=)[A-Za-z0-9%+/=]{10,400}/g,
    replacement: `$1${mask}`,
    markers: ['sig='],
  },
  {
    id: 'docker-config-auth',
    origin: 'secretlint: @secretlint/secretlint-rule-basicauth (Docker config.json "auth")',
    pattern: /("auth\\?"\s{0,5}:\s{0,5}\\?")[A-Za-z0-9+/=]{4,4096}/g,
    replacement: `$1${mask}`,
    markers: ['"auth'],
  },
  {
    id: 'authorization-header',
    origin: 'logs: Authorization header',
    pattern: /(\bAuthorization\s{0,5}[:=]\s{0,5})(?:(Basic|Bearer|Digest|Negotiate|Token)\s{1,5})?[^\s,;"'}]{1,4096}/gi,
    replacement: `$1$2 ${mask}`,
    markers: ['authoriz'],
  },
  {
    id: 'bearer-basic-credentials',
    origin: 'logs: bare Bearer and Basic credentials',
    pattern: /\b(Bearer|Basic)\s{1,5}[A-Za-z0-9._~+/=-]{8,4096}/g,
    replacement: `$1 ${mask}`,
    markers: ['bearer', 'basic'],
  },
  // user:password@ and :password@ in URLs (JDBC, AMQP, Redis, HTTP, …). The match starts at
  // the literal `://`, which V8 searches for fast; the scheme before it needs no check. The
  // password ends at the last @ before the path: passwords hold @ (p@ss@host), user names
  // too (alerts@example.com:pw@smtp).
  {
    id: 'url-credentials',
    origin: 'gitleaks: generic URL credentials; secretlint: @secretlint/secretlint-rule-database-connection-string',
    pattern: /(:\/\/[^\s/:]{0,256}):[^\s/]{1,1024}@/g,
    replacement: `$1:${mask}@`,
    markers: ['://'],
  },
  {
    id: 'oracle-credentials',
    origin: "logs: Oracle's user/password@ in a JDBC URL",
    pattern: /\b(jdbc:oracle:[a-z]{1,10}:[^\s/@:]{1,256})\/[^\s:]{1,1024}@/gi,
    replacement: `$1/${mask}@`,
    markers: ['oracle'],
  },
  {
    id: 'url-session-id',
    origin: 'logs: ;jsessionid= path parameter',
    pattern: /(;jsessionid=)[^?#\s;"']{1,4096}/gi,
    replacement: `$1${mask}`,
    markers: ['session'],
  },
  {
    id: 'session-cookie',
    origin: 'logs: session, single sign-on and remember-me cookies',
    pattern: new RegExp(`\\b(${cookieName})=[^;\\s,"'?&#[]{1,4096}`, 'gi'),
    replacement: `$1=${mask}`,
    markers: cookieMarkers,
  },
  // Command lines: keytool -storepass X, --password X, -p does not count (too short to know).
  {
    id: 'command-line-flag',
    origin: 'logs: credentials given as command-line flags (keytool, CLIs)',
    pattern: new RegExp(
      `((?:^|\\s)--?(?:${secretKey}|storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass|new-?password)(?:=|\\s{1,5}))${value}`,
      'gi',
    ),
    replacement: maskValue,
    markers: keyMarkers,
  },
  // XML elements: <password>…</password>, <ns:keyStorePassword>…. The match starts at `<`.
  {
    id: 'xml-element',
    origin: 'logs: credentials in XML configuration echoed to logs',
    pattern: new RegExp(`(<[\\w:.-]{0,64}${secretKey}[\\w.-]{0,64}>)[^<\\r\\n]{1,4096}`, 'gi'),
    replacement: `$1${mask}`,
    markers: keyMarkers,
  },
  // Before the key/value rules, which would take an object's `{` for the value.
  ...configDumpSignatures,
  // The key/value rules start where an identifier starts (`idStart`) and find the secret
  // word within it: started at the word itself, a key suffix such as `[\w.-]{0,64}` was
  // tried again at every secret word of a long identifier (recheck: polynomial). The whole
  // key stays readable in the first group.
  // JSON with escaped quotes, as JSON logged inside a JSON string: \"password\":\"value\".
  {
    id: 'escaped-json-field',
    origin: 'logs: JSON embedded in a JSON string',
    pattern: new RegExp(`${idStart}(${keyInIdentifier}\\\\"\\s{0,5}:\\s{0,5}\\\\")[^"\\\\]{0,4096}`, 'gi'),
    replacement: `$1${mask}`,
    markers: keyMarkers,
  },
  // JSON: "somePassword": "value" (escaped quotes inside the value allowed).
  {
    id: 'json-field',
    origin: 'logs: JSON field',
    pattern: new RegExp(`${idStart}(${keyInIdentifier}"\\s{0,5}:\\s{0,5}")(?:[^"\\\\]|\\\\.){0,4096}"`, 'gi'),
    replacement: `$1${mask}"`,
    markers: keyMarkers,
  },
  // key=value and key: value, including URL parameters, JVM arguments and Python reprs
  // ('password': 'value'); a quoted value may hold spaces. Not the CLI's `=>`
  // (config-dump-signatures.ts), whose `undefined` is no value.
  {
    id: 'key-value',
    origin: 'logs: key=value, key: value, URL parameters, JVM arguments, Python dict reprs',
    pattern: new RegExp(
      `${idStart}${notFramePosition}(${keyInIdentifier}["']?\\s{0,5}(?:=(?!>)|:)\\s{0,5})${value}`,
      'gi',
    ),
    replacement: maskValue,
    markers: keyMarkers,
  },
]
