import type { FastifyInstance } from 'fastify'
import type { ConsoleReads } from '../store/console-port.js'
import type { PageRenderer } from './page-reply.js'
import { type Column, stackedColumns } from './svg-charts.js'

// The charts page: incidents per day by the branch that decided them, and how long after
// an alert's notification its report was sent, over the last 7 to 90 days (UTC days).

const windows = ['7', '14', '30', '90'] as const
const dayMs = 86_400_000
/** Branches with a colour of their own; the others share one, as do incidents not diagnosed. */
const namedSeries = 7
const otherSeries = 7
const undiagnosedSeries = 8

const delayLabels = ['< 5 s', '5–15 s', '15 s–1 min', '1–5 min', '5–15 min', '15 min–1 h', '≥ 1 h']

const dayLabel = (day: number) => new Date(day * dayMs).toISOString().slice(5, 10)

function perBranch(rows: Array<{ day: number; branch: string; count: number }>, firstDay: number, days: number) {
  const totals = new Map<string, number>()
  for (const row of rows) if (row.branch) totals.set(row.branch, (totals.get(row.branch) ?? 0) + row.count)
  const named = [...totals.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, namedSeries)
    .map(([branch]) => branch)
  const seriesOf = (branch: string) =>
    branch === '' ? undiagnosedSeries : named.includes(branch) ? named.indexOf(branch) : otherSeries
  const seriesName = (series: number) =>
    series === undiagnosedSeries
      ? 'not diagnosed'
      : series === otherSeries
        ? 'other branches'
        : (named[series] as string)
  const columns: Column[] = []
  const table: Array<{ day: string; total: number; parts: string }> = []
  for (let day = firstDay; day < firstDay + days; day++) {
    const counts = new Map<number, number>()
    for (const row of rows.filter((r) => r.day === day)) {
      counts.set(seriesOf(row.branch), (counts.get(seriesOf(row.branch)) ?? 0) + row.count)
    }
    const parts = [...counts.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([series, value]) => ({ series, value, title: `${dayLabel(day)}: ${seriesName(series)}, ${value}` }))
    columns.push({ label: dayLabel(day), parts })
    const total = parts.reduce((sum, p) => sum + p.value, 0)
    table.push({ day: dayLabel(day), total, parts: parts.map((p) => `${seriesName(p.series)} ${p.value}`).join(', ') })
  }
  const used = new Set(columns.flatMap((c) => c.parts.map((p) => p.series)))
  const legend = [...used]
    .sort((a, b) => a - b)
    .map((series) => ({ series: `series-${series}`, label: seriesName(series) }))
  return { chart: stackedColumns(columns, Math.ceil(days / 15)), legend, table }
}

function delays(rows: Array<{ bucket: number; count: number }>) {
  const columns: Column[] = delayLabels.map((label, bucket) => {
    const value = rows.find((r) => r.bucket === bucket)?.count ?? 0
    return { label, parts: [{ series: 0, value, title: `${label}: ${value} reports` }] }
  })
  return {
    chart: stackedColumns(columns),
    table: columns.map((c) => ({ label: c.label, count: c.parts[0]?.value ?? 0 })),
    total: rows.reduce((sum, r) => sum + r.count, 0),
  }
}

export interface ChartsDeps {
  console: ConsoleReads
  render: PageRenderer
  now?: () => number
}

export async function chartsRoutes(app: FastifyInstance, deps: ChartsDeps) {
  app.get<{ Querystring: { days?: (typeof windows)[number] } }>('/charts', {
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { days: { enum: [...windows] } } },
    },
    handler: async (request, reply) => {
      const days = Number(request.query.days ?? '14')
      // Whole UTC days, today included.
      const lastDay = Math.floor((deps.now ?? Date.now)() / dayMs)
      const firstDay = lastDay - days + 1
      const since = firstDay * dayMs
      const until = (lastDay + 1) * dayMs
      const [perDay, delayRows] = await Promise.all([
        deps.console.incidentsPerDay(since, until),
        deps.console.reportDelays(since, until),
      ])
      const model = {
        days,
        windows: windows.map((w) => ({ days: w, href: `/console/charts?days=${w}`, current: Number(w) === days })),
        perBranch: perBranch(perDay, firstDay, days),
        delays: delays(delayRows),
      }
      return deps.render(request, reply, 'charts', model, { title: 'Charts', current: 'charts' })
    },
  })
}
