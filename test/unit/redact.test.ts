import { lintSource } from '@secretlint/core'
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend'
import { check } from 'recheck'
import { describe, expect, it } from 'vitest'
import { redact, redactionOf, redactionPatterns } from '../../src/evidence/redact.js'
import { recheckOptions } from '../../src/rules/pattern-safety.js'
import { secretCorpus } from '../fixtures/secret-corpus.js'
import { secretNegatives, secretShapes } from '../fixtures/secret-shapes.js'

describe('redact (D15)', () => {
  it.each(secretCorpus)('removes the secret from: $name', ({ line, secrets, keep }) => {
    const redacted = redact(line)
    for (const secret of secrets) expect(redacted).not.toContain(secret)
    expect(redacted).toContain('[REDACTED]')
    for (const context of keep) expect(redacted).toContain(context)
  })

  it('ends a key block cut off by the excerpt where its base64 ends, keeping the lines after it', () => {
    const text =
      'dump\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n2026-11-22 ERROR java.lang.OutOfMemoryError: Java heap space'
    const redacted = redact(text)
    expect(redacted).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC')
    expect(redacted).not.toContain('BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj')
    expect(redacted.endsWith('\n2026-11-22 ERROR java.lang.OutOfMemoryError: Java heap space')).toBe(true)
  })

  it('redacts a whole excerpt exactly as it redacts each of its lines', () => {
    const clean = [
      '2026-11-22 INFO Grüße aus Köln – order 4711 shipped',
      '',
      '\tat com.example.Export.render(Export.java:212)',
    ]
    const lines = secretCorpus.flatMap(({ line }, i) => [line, clean[i % clean.length] as string])
    expect(redact(lines.join('\n'))).toBe(lines.map((line) => redact(line)).join('\n'))
  })

  it('leaves ordinary log lines untouched', () => {
    const lines = [
      '2026-11-22 04:50:02,100 INFO  [http-nio-8080-exec-1] c.e.orders.OrderController - GET /api/orders/123 200 in 14 ms',
      'java.net.ConnectException: Connection refused',
      '[2026-11-22T04:55:01.001+0000][info][gc] GC(101) Pause Full (Allocation Failure) 2040M->1990M(2048M) 2345.678ms',
      'Caused by: java.sql.SQLException: Access denied for user app@10.0.0.5',
    ]
    for (const line of lines) expect(redact(line)).toBe(line)
  })

  it('stays linear on hostile input: no slower than ordinary lines with secrets of the same size', () => {
    // Against a baseline measured in the same run, not a fixed number of milliseconds: a
    // quadratic expression takes hundreds of times the baseline on 512 KiB (the JWT rule
    // took 3.1 s on `-eyJ` repeated), a linear one about the baseline (npm run bench:redact).
    const size = 512 * 1024
    const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
    const median = (text: string) => {
      const times = [0, 1, 2].map(() => {
        const started = performance.now()
        redact(text)
        return performance.now() - started
      })
      return times.sort((a, b) => a - b)[1] as number
    }
    const baseline = median(fill(`${[...secretCorpus, ...secretShapes].map((s) => s.line).join('\n')}\n`))
    const hostile = [
      `${'a.password'.repeat(52_000)}x`,
      fill('-'),
      `eyJ${fill('A')}`,
      fill('-eyJ'),
      fill('"name": "x_password", '),
      fill(`${'x'.repeat(60)}_password: |\n`), // every line opens a block: one record of them all
      fill('LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t\n'),
      fill('://a:b@'),
      fill('"password" => '),
    ]
    const slow = hostile
      .map((text) => ({ input: text.slice(0, 24), ratio: median(text) / baseline }))
      .filter(({ ratio }) => ratio >= 10)
    expect(slow).toEqual([])
  })
})

describe('secrets outside the usual shapes (issue 26)', () => {
  it.each(secretShapes)('$kind: removes the secret from $name', ({ line, secrets, keep }) => {
    const redacted = redact(line)
    for (const secret of secrets) expect(redacted).not.toContain(secret)
    expect(redacted).toContain('[REDACTED]')
    for (const context of keep) expect(redacted).toContain(context)
    // A value on the next lines is masked in place: the lines keep their numbers.
    expect(redacted.split('\n').length).toBe(line.split('\n').length)
  })

  it.each(secretNegatives)(
    'leaves alone what holds no secret, or masks it knowingly: $name',
    ({ line, overRedacted }) => {
      if (overRedacted) expect(redact(line)).not.toBe(line)
      else expect(redact(line)).toBe(line)
    },
  )
})

describe('the redaction expressions', () => {
  it.each(redactionPatterns.map((pattern) => [pattern.source.slice(0, 60), pattern] as const))(
    'are proven linear-time by recheck: %s',
    async (_name, pattern) => {
      const diagnostics = await check(pattern.source, pattern.flags, recheckOptions(20_000))
      expect(diagnostics.status).toBe('safe')
    },
    30_000,
  )
})

describe('secretlint, a maintained secret scanner, as a second opinion', () => {
  const lint = async (content: string) =>
    (
      await lintSource({
        source: { filePath: '/excerpt.log', content, contentType: 'text' },
        options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] } },
      })
    ).messages

  it('finds secrets in the corpus, and none left after redaction but masked ones', async () => {
    const raw = secretCorpus.map((sample) => sample.line).join('\n')
    expect((await lint(raw)).length).toBeGreaterThanOrEqual(10)
    const redacted = redact(raw)
    // What it still reports are URLs whose password is the mask itself.
    for (const message of await lint(redacted)) {
      expect(redacted.slice(message.range[0], message.range[1])).toContain('[REDACTED]')
    }
  })
})

describe('redact, for one short string (an alert label or annotation, a generator URL)', () => {
  it.each([
    ['a label holding a JDBC URL', 'jdbc:postgresql://orders:p@ss@word@db:5432/orders', 'p@ss@word'],
    ['an annotation quoting a cookie', 'login loop for bob, Cookie: SMSESSION=SmLabel0123456789', 'SmLabel0123456789'],
    [
      'a dashboard URL with a key',
      'https://grafana.example.com/d/abc?orgId=1&api_key=GrafKey-0123456789',
      'GrafKey-0123456789',
    ],
    ['a gateway header in a summary', 'probe sent Ocp-Apim-Subscription-Key: 0f1e2d3c4b5a6978', '0f1e2d3c4b5a6978'],
  ])('removes the secret from %s', (_name, text, secret) => {
    const redacted = redact(text)
    expect(redacted).not.toContain(secret)
    expect(redacted).toContain('[REDACTED]')
  })

  it.each([
    '',
    'app-01',
    'TD-02 JavaHeapExhausted',
    'http://prometheus:9090/graph?g0.expr=jvm_memory_used_bytes%7Barea%3D%22heap%22%7D&g0.tab=1',
  ])('leaves %j as it is', (text) => {
    expect(redact(text)).toBe(text)
  })
})

describe('the options of redaction, off by default', () => {
  const cards = 'payment declined for 4111 1111 1111 1111 and 5500-0000-0000-0004, order 12345678901234567890'
  it('masks card numbers that pass the Luhn check with maskCardNumbers', () => {
    expect(redact(cards)).toBe(cards)
    const masked = redact(cards, { maskCardNumbers: true })
    expect(masked).toBe('payment declined for [REDACTED]-CARD and [REDACTED]-CARD, order 12345678901234567890')
    const notACard = 'ids 4111 1111 1111 1112 at 2026-11-22 04:50:02,100 pid 1234567890123'
    expect(redact(notACard, { maskCardNumbers: true })).toBe(notACard)
  })

  it('masks the local part of e-mail addresses with maskEmails', () => {
    const line = 'mail to bob.smith+alerts@example.co.uk failed; Access denied for user app@10.0.0.5'
    expect(redact(line)).toBe(line)
    expect(redact(line, { maskEmails: true })).toBe(
      'mail to [REDACTED]@example.co.uk failed; Access denied for user app@10.0.0.5',
    )
  })

  it('keeps redacting secrets, and keeps one scanner index per set of options', () => {
    const line = 'password=hunter2 for bob@example.com card 4111111111111111'
    expect(redact(line, { maskCardNumbers: true, maskEmails: true })).toBe(
      'password=[REDACTED] for [REDACTED]@example.com card [REDACTED]-CARD',
    )
    expect(redactionOf({ maskEmails: true }).markers).toBe(
      redactionOf({ maskEmails: true, maskCardNumbers: false }).markers,
    )
    expect(redactionOf({}).markers).not.toContain('@')
  })
})
