import { describe, expect, it } from 'vitest'
import { redact } from '../../src/evidence/redact.js'
import { secretKey } from '../../src/evidence/secret-words.js'
import { readExceptions } from '../../src/text/exceptions/read-exceptions.js'
import { sourcePosition } from '../../src/text/exceptions/trace-lines.js'
import { excerptOfText } from '../../src/text/excerpt.js'
import { isFrameSegment } from '../../src/text/stack-frames.js'

// A stack frame's source position, `(Token.java:112)`, is never a secret (docs/design.md,
// "Secret redaction"): the key/value rule read `Token.java` as a key and `112)` as its
// value, so a frame of any class named with a secret word lost its line number and closing
// parenthesis and was no frame any more for the exception reader.

/** Classes named with each secret word of secret-words.ts (`secretKey`). */
const secretWordClasses = [
  'Token',
  'TokenService',
  'StringTokenizer',
  'PasswordEncoder',
  'PasswdFile',
  'PassphraseProvider',
  'Bypass',
  'PwdUtil',
  'SecretManager',
  'ApiKeyFilter',
  'Api_KeyHolder',
  'AccessKeyProvider',
  'Access_KeyStore',
  'PrivateKeyLoader',
  'Credential',
  'CredentialsProvider',
  'AccountKeyResolver',
  'SharedAccessKeyCredential',
  'SubscriptionKeyFilter',
  'ClearTextCallback',
]
/** Words of the other signatures (headers, cookies): no frame of theirs may change either. */
const otherWordClasses = ['Authorization', 'AuthorizationFilter', 'BearerTokenResolver', 'BasicAuthenticator']
const sessionClasses = ['SessionManager', 'JSessionIdFilter', 'RememberMeServices', 'LtpaToken2']

/** One frame of `name` in each layout a JVM or its loggers print, with a line number. */
const framesOf = (name: string) => [
  // Throwable.printStackTrace: https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/lang/Throwable.html#printStackTrace()
  `\tat com.example.security.${name}.handle(${name}.java:123)`,
  `\tat app//com.example.security.${name}.<init>(${name}.java:7)`,
  `\tat com.example.security.${name}.lambda$resolve$0(${name}.kt:45)`,
  `\tat com.example.security.${name}$.apply(${name}.scala:67)`,
  `\tat com.example.security.${name}.call(${name}.groovy:8)`,
  // logback's packaging data (https://logback.qos.ch/reasonsToSwitch.html#packagingData), indented by spaces.
  `        at com.example.security.${name}.handle(${name}.java:123) ~[security-core-2.4.1.jar:2.4.1]`,
  `  at com.example.security.${name}.handle(${name}.java:123) [security-core-2.4.1.jar!/:na]`,
  `\tat com.example.security.${name}.handle(${name}.java:123) ~[?:1.8.0_181]`,
  // A JSON layout's trace in one string, its lines joined by `\n` escapes.
  `{"level":"ERROR","stack_trace":"java.lang.IllegalStateException: boom\\n\\tat com.example.security.${name}.handle(${name}.java:123)\\n\\tat com.example.Main.run(Main.java:9)\\n"}`,
]

describe('redaction keeps the source positions of stack frames', () => {
  it('names a secret word in each class of the samples (the samples test what they claim)', () => {
    const word = new RegExp(secretKey, 'i')
    for (const name of secretWordClasses) expect(name).toMatch(word)
  })

  it.each([...secretWordClasses, ...otherWordClasses, ...sessionClasses])(
    'leaves every frame of %s byte for byte',
    (name) => {
      for (const frame of framesOf(name)) expect(redact(frame)).toBe(frame)
      const trace = ['java.lang.IllegalStateException: boom', ...framesOf(name).slice(0, 8)].join('\n')
      expect(redact(trace)).toBe(trace)
    },
  )

  it('leaves frames that still read as frames, for the scanner and for the reader', () => {
    for (const name of secretWordClasses) {
      const frame = redact(
        `\tat com.example.security.${name}.handle(${name}.java:123) ~[security-core-2.4.1.jar:2.4.1]`,
      )
      expect(isFrameSegment(frame)).toBe(true)
      expect(sourcePosition.test(frame.slice(frame.indexOf('(') + 1, frame.indexOf(')')))).toBe(true)
    }
  })

  it("reads Paho's trace after redaction as before it: the cause's frames are Paho's, its message is its own", () => {
    // https://github.com/256dpi/processing-mqtt/issues/28, abridged (test/corpus/excerpts/paho.json)
    const log = [
      'java.lang.RuntimeException: [MQTT] Failed to publish: Tiempo de espera excedido al esperar una respuesta del servidor',
      '\tat mqtt.MQTTClient.publish(Unknown Source)',
      '\tat processing.core.PApplet.handleDraw(PApplet.java:2493)',
      'Caused by: Tiempo de espera excedido al esperar una respuesta del servidor (32000)',
      '\tat org.eclipse.paho.client.mqttv3.internal.Token.waitForCompletion(Token.java:112)',
      '\tat org.eclipse.paho.client.mqttv3.MqttToken.waitForCompletion(MqttToken.java:67)',
    ].join('\n')
    expect(redact(log)).toBe(log)
    const read = (text: string) =>
      readExceptions(excerptOfText(text), {
        componentPrefixes: ['org.eclipse.paho.client.mqttv3.', 'processing.'],
      }).map((record) => [
        record.class,
        record.frames,
        record.causes.map((cause) => [cause.class, cause.message, cause.frames]),
      ])
    expect(read(redact(log))).toEqual(read(log))
    expect(read(redact(log))).toEqual([
      [
        'java.lang.RuntimeException',
        ['processing.'],
        [
          [
            'org.eclipse.paho.client.mqttv3.MqttException',
            'Tiempo de espera excedido al esperar una respuesta del servidor (32000)',
            ['org.eclipse.paho.client.mqttv3.'],
          ],
        ],
      ],
    ])
  })
})

describe('redaction still masks what is a secret around a frame', () => {
  const frame = '\tat org.eclipse.paho.client.mqttv3.internal.Token.waitForCompletion(Token.java:112)'
  it.each([
    ['a key/value', 'token: abc', 'token: [REDACTED]'],
    ['a password', 'password=hunter2', 'password=[REDACTED]'],
    ['a JSON field', '{"apiKey":"k-0123456789"}', '{"apiKey":"[REDACTED]"}'],
    // A source file's name as a key outside a frame's parentheses is a key like any other.
    ['a file name as a key with `=`', 'Token.java=abc', 'Token.java=[REDACTED]'],
    ['a file name as a key with `:`', 'Token.java:112', 'Token.java:[REDACTED]'],
    ['a secret after a frame', `${frame} secret: x`, `${frame} secret: [REDACTED]`],
    ['a token after a frame', `${frame} token=abc`, `${frame} token=[REDACTED]`],
    [
      'a key after a frame in JSON',
      `{"frame":"${frame.trim()}","token":"abc"}`,
      `{"frame":"${frame.trim()}","token":"[REDACTED]"}`,
    ],
    // Only `(<File>.<ext>:<digits>)` is a source position: anything else in parentheses is a value.
    ['a value that is no line number', '(Token.java:abc)', '(Token.java:[REDACTED]'],
    ['digits run into letters', '(Token.java:112abc)', '(Token.java:[REDACTED]'],
    ['a word after the parenthesis', '(Token.java:112)hunter2', '(Token.java:[REDACTED]'],
    ['no closing parenthesis', '(Token.java:112', '(Token.java:[REDACTED]'],
    ['no opening parenthesis', 'Token.java:112)', 'Token.java:[REDACTED]'],
    ['a space before the digits', '(Token.java: 112)', '(Token.java: [REDACTED]'],
    ['no source file', '(password:1234)', '(password:[REDACTED]'],
    ['a file that is no JVM source', '(token.txt:1234)', '(token.txt:[REDACTED]'],
    ['a dotted key', '(db.password.java:1234)', '(db.password.java:[REDACTED]'],
  ])('masks %s', (_name, line, redacted) => {
    expect(redact(line)).toBe(redacted)
  })
})
