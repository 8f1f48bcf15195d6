import { lintSource } from '@secretlint/core'
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend'
import { check } from 'recheck'
import { describe, expect, it } from 'vitest'
import { redact, redactionPatterns } from '../../src/evidence/redact.js'
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

  it('stays linear on hostile input (a 512 KiB line of key-like characters)', () => {
    const hostile = `${'a.password'.repeat(52_000)}x`
    const started = performance.now()
    redact(hostile)
    redact('-'.repeat(512 * 1024))
    redact(`eyJ${'A'.repeat(512 * 1024)}`)
    redact('-eyJ'.repeat(128 * 1024)) // 3.1 s before the JWT rule refused starts inside a run
    // Generous: a quadratic expression would take minutes here, a linear one milliseconds.
    expect(performance.now() - started).toBeLessThan(5_000)
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
      const diagnostics = await check(pattern.source, pattern.flags, { timeout: 20_000 })
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
