import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alert, webhook } from '../helpers/alerts.js'
import { build, type TestService, testToken } from '../helpers/build.js'
import { ConsoleClient, htmlEscaped, htmlUnescaped } from '../helpers/console-client.js'
import { waitFor } from '../helpers/smtp.js'

// The console's pages over the real HTTPS listener (docs/operations.md, "The web console"),
// on SQLite and on PostgreSQL (npm run test:postgres): the list's filters as a URL, its
// keyset pages, the CSV export and its escaping, an incident explained, the charts, the rules.

/** The incident links of a list page, in order. */
const listed = (html: string) =>
  [...html.matchAll(/<a href="\/console\/incidents\/([^"?#]+)">/g)].map((m) => m[1] as string)
const nextLink = (html: string) => {
  const href = /<a href="([^"]+)" rel="next">/.exec(html)?.[1]
  return href === undefined ? undefined : htmlUnescaped(href)
}

describe('console pages', () => {
  let t: TestService
  let b: ConsoleClient
  const ids: Record<string, string> = {}
  const get = async (path: string) => {
    const res = await b.get(path)
    expect(res.status, path).toBe(200)
    // No script, no inline style, no event attribute, on any page (the CSP would refuse them).
    expect(res.text).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i)
    return res.text
  }

  beforeAll(async () => {
    t = await build({ DIAG_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: '0' })
    const post = (payload: unknown) => t.call('POST', '/api/v1/alerts/alertmanager', { json: payload })
    await post(webhook([alert({ id: 'c1', startsAt: '2026-11-22T04:56:00.000Z' })]))
    await post(webhook([alert({ id: 'c2', startsAt: '2026-11-22T04:57:30.000Z' }, { appserver_instance: 'app-02' })]))
    // Label values a spreadsheet would take for formulas, with quotes and commas.
    await post(
      webhook([
        alert(
          { id: 'c3' },
          { alertname: '=HYPERLINK("http://evil.example","x")', appserver_instance: '@SUM(1,2)', severity: '-2+3' },
        ),
      ]),
    )
    const sent = async () => (await t.rows("SELECT id FROM outbox WHERE status = 'sent'")).length === 3
    await waitFor(sent, 20_000, 'three diagnoses delivered')
    // Alertmanager's repeat of app-01's alert: a duplicate, absorbed without a write.
    const repeat = await post(webhook([alert({ id: 'c1', startsAt: '2026-11-22T04:56:00.000Z' })]))
    expect(repeat.json().duplicates).toBe(1)
    // app-01 resolves, then fires again with a later start: a second occurrence of the same alert.
    await post(
      webhook([alert({ id: 'c1', status: 'resolved', startsAt: '2026-11-22T04:56:00.000Z' })], { status: 'resolved' }),
    )
    await post(webhook([alert({ id: 'c1', startsAt: '2026-11-22T05:30:00.000Z' })]))
    const all = async () => (await t.rows("SELECT id FROM outbox WHERE status = 'sent'")).length === 5
    await waitFor(all, 20_000, 'the recovery and the second diagnosis delivered')
    // Housekeeping writes the duplicates' count now (otherwise once a minute).
    await t.service.housekeeping.runOnce()
    const rows = (await t.rows('SELECT id, instance, starts_at FROM incidents')) as Array<Record<string, unknown>>
    for (const row of rows) {
      const key =
        row.instance === 'app-01'
          ? Number(row.starts_at) === Date.parse('2026-11-22T04:56:00.000Z')
            ? 'first'
            : 'again'
          : row.instance === 'app-02'
            ? 'oom'
            : 'hostile'
      ids[key] = row.id as string
    }
    b = new ConsoleClient(t.service.url, t.ca)
    expect((await b.signIn(testToken)).status).toBe(303)
  })
  afterAll(() => t.close())

  it('lists every incident, newest first, with its diagnosis', async () => {
    const html = await get('/console/incidents')
    expect(listed(html)).toHaveLength(4)
    expect(listed(html)[0]).toBe(ids.again)
    expect(html).toContain('<strong>AH-01</strong> ContainerOomKilled')
    // Escaped, not markup.
    expect(html).toContain('&#x3D;HYPERLINK(&quot;http://evil.example&quot;,&quot;x&quot;)')
  })

  it.each([
    ['state=resolved', ['first']],
    ['state=open', ['again', 'hostile', 'oom']],
    ['branch=AH-01', ['oom']],
    ['category=jvm_memory', ['again', 'oom', 'first']],
    ['instance=app-02', ['oom']],
    [`alertname=${encodeURIComponent('=HYPERLINK("http://evil.example","x")')}`, ['hostile']],
    ['state=open&instance=app-01', ['again']],
    ['from=2000-01-01T00:00&to=2000-01-02T00:00', []],
    ['from=2000-01-01T00%3A00&state=&branch=&category=&confidence=&instance=&alertname=&to=', 'all'],
  ])('filters by the query %s, a URL that saves the view', async (query, expected) => {
    const html = await get(`/console/incidents?${query}`)
    const found = listed(html).map((id) => Object.keys(ids).find((key) => ids[key] === id))
    if (expected === 'all') expect(found).toHaveLength(4)
    else expect(found.sort()).toEqual([...expected].sort())
    if (expected.length === 0) expect(html).toContain('No incident matches these filters.')
  })

  it('filters by confidence as the diagnosis recorded it', async () => {
    const [row] = await t.rows('SELECT confidence FROM incidents WHERE id = ?', ids.oom)
    expect(row?.confidence).toMatch(/^(high|medium)$/)
    const html = await get(`/console/incidents?confidence=${row?.confidence}`)
    expect(listed(html)).toContain(ids.oom)
  })

  it('pages with a cursor, each incident exactly once, the filters kept', async () => {
    const seen: string[] = []
    let path: string | undefined = '/console/incidents?limit=1&category=jvm_memory'
    while (path) {
      const html = await get(path)
      seen.push(...listed(html))
      path = nextLink(html)
      if (path) expect(path).toMatch(/^\/console\/incidents\?category=jvm_memory&limit=1&after=/)
    }
    expect(seen).toEqual([ids.again, ids.oom, ids.first])
  })

  it.each([
    ['state=closed', '/state'],
    ['limit=0', '/limit'],
    ['from=yesterday', '/from'],
    ['after=bm9wZQ', '/after'],
    ['from=2026-11-22T05:00&to=2026-11-22T04:00', '/to'],
    ['sort=asc', '/'],
  ])('answers a bad query %s with 400 and says which parameter', async (query, path) => {
    const res = await b.get(`/console/incidents?${query}`)
    expect(res.status).toBe(400)
    expect(res.text).toContain(`<code>${path}</code>`)
  })

  it('exports the filtered list as CSV, every text cell quoted and formulas defused', async () => {
    const res = await b.get('/console/incidents.csv?state=open')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toBe('attachment; filename="incidents.csv"')
    const lines = res.text.split('\r\n')
    expect(lines.at(-1)).toBe('')
    expect(lines[0]).toBe(
      '"id","state","alertname","instance","severity","startsAt","openedAt","endedAt","durationSeconds","refires","branch","ruleName","category","classification","confidence"',
    )
    expect(lines.slice(1, -1)).toHaveLength(3)
    const hostile = lines.find((line) => line.startsWith(`"${ids.hostile}"`)) as string
    expect(hostile).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")","'@SUM(1,2)","'-2+3",`)
    expect(lines.filter((line) => line.includes('"resolved"'))).toEqual([])
  })

  it('explains an incident: labels, diagnosis, timeline with durations, evidence with file:line, the report as mailed', async () => {
    const html = await get(`/console/incidents/${ids.first}`)
    for (const section of ['labels', 'diagnosis', 'why', 'timeline', 'evidence', 'report', 'occurrences']) {
      expect(html).toContain(`<section id="${section}" aria-labelledby="${section}-title">`)
    }
    expect(html).toMatch(/<th scope="row"><code>appserver_instance<\/code><\/th><td>app-01<\/td>/)
    expect(html).toContain('<strong>TD-02 JavaHeapExhausted</strong>')
    expect(html).toContain('Firing notification received (opened)')
    expect(html).toContain('Resolved notification received (resolved)')
    expect(html).toContain('The diagnosis mail was sent')
    expect(html).toContain('The recovery mail was sent')
    expect(html).toMatch(/<td class="num">\d+(\.\d)? (ms|s)<\/td>/)
    expect(html).toContain('<td>The alert started (its startsAt)</td>')
    expect(html).toMatch(
      /<td>Claimed by the worker <span class="muted">\(1 attempt; the queue item is done now\)<\/span><\/td>\s*<td class="num">\d+(\.\d)? (ms|s)<\/td>/,
    )
    expect(html).toMatch(
      /<td>Diagnosed: TD-02, probable cause, medium confidence <span class="muted">[^<]*<\/span><\/td>\s*<td class="num">\d+(\.\d)? (ms|s)<\/td>/,
    )
    expect(html).toMatch(/<th scope="row"><code>[^<]*catalina\.out:\d+<\/code><\/th>/)
    expect(html).toMatch(/<tr class="match">/)
    // The text part byte for byte, lines where the mail has them.
    expect(html).toContain(
      '<pre class="report" tabindex="0">DIAGNOSIS REPORT - AppServerDown on app-01\nAdvisory only: the diagnostic service took no action.\n\n1. SUMMARY\n',
    )
    const [mail] = await t.rows(
      "SELECT text_body FROM outbox WHERE kind = 'diagnosis' AND event_id IN (SELECT id FROM events WHERE incident_id = ?)",
      ids.first,
    )
    expect(html).toContain(`tabindex="0">${htmlEscaped(String(mail?.text_body))}</pre>`)
    expect(html).toContain('This is the first occurrence of this alert the service holds.')
  })

  it('gives the timeline from the backend: duplicates absorbed and from which sender, each evidence source with its duration', async () => {
    const html = await get(`/console/incidents/${ids.first}`)
    const timeline = html.slice(html.indexOf('<section id="timeline"'), html.indexOf('<section id="evidence"'))
    expect(timeline).toMatch(
      /<td>1 duplicate absorbed from default <span class="muted">\(receiver diagnostic-service; answered without a write, the last at [^)]+\)<\/span><\/td>/,
    )
    for (const source of ['the logs \\(read, redacted, scanned\\)', 'the container events \\(spool\\)'])
      expect(timeline).toMatch(
        new RegExp(`<td>Evidence from ${source}: ok</td>\\s*<td class="num">\\d+(\\.\\d)? (ms|s)</td>`),
      )
    // In time order, each step once.
    const times = [...timeline.matchAll(/<time datetime="([^"]+)">/g)].map((m) => Date.parse(m[1] as string))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(timeline.match(/The diagnosis mail was sent/g)).toHaveLength(1)
  })

  it('says why this branch: each rule that matched or almost matched, its conditions and values, and the ranking', async () => {
    const html = await get(`/console/incidents/${ids.first}`)
    const why = html.slice(html.indexOf('<section id="why"'), html.indexOf('<section id="timeline"'))
    expect(why).toContain('<strong>TD-02 JavaHeapExhausted</strong> is the primary finding.')
    expect(why).toContain(
      '<caption><strong>TD-02 JavaHeapExhausted</strong>: matched: the primary finding; probable cause, medium confidence, not corroborated; priority 50',
    )
    // A condition: its fact, operator, the patterns compared with, the line of examples/logs/app-01 that matched, held.
    expect(why).toMatch(
      /<td class="depth-\d"><code>log<\/code><\/td>\s*<td>matches<\/td>\s*<td><ul class="values"><li><code>OutOfMemoryError: Java heap space<\/code><\/li>[\s\S]*?<li><code>line \d+: \s*java\.lang\.OutOfMemoryError: Java heap space<\/code><\/li><\/ul><\/td>\s*<td><span class="held held-held">held<\/span><\/td>/,
    )
    // What failed, with the fact's value in this run: no heap ratio from metrics.
    expect(why).toMatch(
      /<code>metrics \$\.heapUsedRatio<\/code><\/td>\s*<td>≥<\/td>\s*<td><ul class="values"><li><code>0\.9<\/code><\/li><\/ul><\/td>\s*<td><ul class="values"><li><code>null<\/code><\/li><\/ul><\/td>\s*<td><span class="held held-failed">failed<\/span>/,
    )
    expect(why).toContain('<h3>Rules that almost matched</h3>')
    expect(why).toMatch(
      /<caption><strong>GC-03 LongGcPause<\/strong>: almost matched: member 1 of its conditions failed/,
    )
    expect(why).toMatch(/<tr class="failed-member">\s*<td class="depth-1"><code>gc \$\.maxPauseMs<\/code>/)
    expect(why).toContain(
      '<tr><th scope="row">TH-02</th><td>the rules&#x27; priorities, higher first</td><td>priority 50</td><td>priority 49</td></tr>',
    )
    expect(why).toMatch(/Its evidence is kept for a replay: [\d.]+ KiB compressed from [\d.]+ KiB\./)
  })

  it('lists the earlier occurrences of the same alert with their branches', async () => {
    const html = await get(`/console/incidents/${ids.again}`)
    const earlier = html.slice(html.indexOf('<section id="occurrences"'))
    expect(earlier).toContain(`<a href="/console/incidents/${ids.first}">`)
    expect(earlier).toContain('<strong>TD-02</strong> JavaHeapExhausted')
    expect(earlier).toContain('<td>resolved</td>')
  })

  it('answers an unknown incident with a 404 page', async () => {
    const res = await b.get('/console/incidents/01a20000-0000-7000-8000-000000000000')
    expect(res.status).toBe(404)
    expect(res.text).toContain('No incident has this id.')
  })

  it('draws the incidents per day by branch and the time to report as inline SVG, with the numbers in a table', async () => {
    const html = await get('/console/charts?days=30')
    expect(html.match(/<svg class="chart" /g)).toHaveLength(2)
    expect(html).toMatch(/<rect class="series-\d" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+"><title>/)
    expect(html).toContain('TD-02')
    // The incidents opened in the window, in the table (the alerts' starts are in the past, their receipts today).
    const total = [...html.matchAll(/<tr><td>\d\d-\d\d<\/td><td class="num">(\d+)<\/td>/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    )
    expect(total).toBe(4)
    expect(html).toMatch(/4 diagnosis reports sent/)
    expect((await b.get('/console/charts?days=5')).status).toBe(400)
  })

  it('shows the rule catalogue: who registered each and when, its JSON, the incidents it decided', async () => {
    const html = await get('/console/rules')
    expect(html).toContain('The catalogue holds 30 rules: 20 built-in, 10 registered')
    const td02 = html.slice(html.indexOf('<th scope="row">TD-02</th>'))
    expect(td02).toMatch(
      /^<th scope="row">TD-02<\/th>[\s\S]*?<td>built-in: shipped \(TD rules, version [^)]+\)<\/td>\s*<td class="num">2<\/td>\s*<td class="num">2<\/td>/,
    )
    expect(html).toMatch(/<td>seed: the service at its first start \(the seed rulepack\), <time datetime="[^"]+">/)
    expect(html).toContain('&quot;branch&quot;: &quot;TD-09&quot;')
    const next = await get('/console/rules?from=20')
    expect(next).toContain('<th scope="row">TD-09</th>')
    expect(next).not.toContain('<th scope="row">TD-02</th>')
  })
})

describe('an incident with more notifications than the timeline shows at once', () => {
  let t: TestService
  let b: ConsoleClient
  beforeAll(async () => {
    // Events only: the worker's reports would add nothing here.
    t = await build({
      DIAG_WORKER: 'off',
      DIAG_QUEUE_CAPACITY: '1000',
      DIAG_NEW_CONNECTIONS_PER_ADDRESS_PER_SECOND: '0',
    })
    b = new ConsoleClient(t.service.url, t.ca)
    expect((await b.signIn(testToken)).status).toBe(303)
  })
  afterAll(() => t.close())

  it('pages the timeline: 100 notifications a page, each exactly once, with links between the pages', async () => {
    const startsAt = '2026-11-22T04:56:00.000Z'
    // A flapping alert: resolved and re-fired with the same start, 130 notifications of one incident.
    for (let i = 0; i < 130; i++) {
      const status = i % 2 === 0 ? 'firing' : 'resolved'
      const res = await t.call('POST', '/api/v1/alerts/alertmanager', {
        json: webhook([alert({ id: 'flap', status, startsAt })], { status }),
      })
      expect(res.status).toBe(202)
    }
    const [incident] = (await t.rows('SELECT id FROM incidents')) as Array<{ id: string }>
    const receipts = (html: string) => {
      const timeline = html.slice(html.indexOf('<section id="timeline"'), html.indexOf('<section id="evidence"'))
      return [...timeline.matchAll(/notification received/g)].length
    }
    const first = await b.get(`/console/incidents/${incident?.id}`)
    expect(first.status).toBe(200)
    const link = /<a href="(\?events=[^"#]+)#timeline">Later notifications<\/a>/.exec(first.text)?.[1]
    expect(link).toBeDefined()
    const second = await b.get(`/console/incidents/${incident?.id}${htmlUnescaped(link as string)}`)
    expect(second.status).toBe(200)
    expect(second.text).toContain('Back to the first ones')
    expect(second.text).not.toContain('Later notifications</a>')
    expect([receipts(first.text), receipts(second.text)]).toEqual([100, 30])
    expect((await b.get(`/console/incidents/${incident?.id}?events=bm9wZQ`)).status).toBe(400)
  })
})
