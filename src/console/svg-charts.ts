// Bar charts as data for `_bar-chart.hbs`, which draws them as inline SVG on the server: no
// script, no style attribute (colours are classes of the stylesheet, so the CSP's
// `style-src 'self'` holds), a <title> on every bar for its value and a table beside each
// chart for screen readers (docs/design.md, "The web console"). Written here: no charting
// library among the dependencies renders SVG on the server without a DOM, and these are
// two kinds of bars.

export interface Bar {
  x: number
  y: number
  width: number
  height: number
  /** The stylesheet's class of its series: `series-0` .. `series-8`. */
  series: string
  title: string
}

export interface BarChart {
  width: number
  height: number
  plot: { left: number; top: number; right: number; bottom: number }
  bars: Bar[]
  yTicks: Array<{ y: number; label: string }>
  xLabels: Array<{ x: number; label: string }>
}

const size = { width: 760, height: 260, left: 48, right: 12, top: 12, bottom: 36 }

/**
 * The scale of a count axis: a step of 1, 2 or 5 times a power of ten (never below 1: the
 * values are counts) giving about four intervals, and the top, a multiple of it at least `max`.
 */
export function countScale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 1, step: 1 }
  const rough = max / 4
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = Math.max(1, ([1, 2, 5].find((f) => f * power >= rough) ?? 10) * power)
  return { top: Math.ceil(max / step) * step, step }
}

export interface Column {
  label: string
  /** The stacked parts of the column, bottom first. */
  parts: Array<{ series: number; value: number; title: string }>
}

/** Columns of stacked bars on one scale; every `labelEvery`-th column is labelled below. */
export function stackedColumns(columns: Column[], labelEvery = 1): BarChart {
  const plot = {
    left: size.left,
    top: size.top,
    right: size.width - size.right,
    bottom: size.height - size.bottom,
  }
  const { top, step: tick } = countScale(
    Math.max(0, ...columns.map((c) => c.parts.reduce((sum, p) => sum + p.value, 0))),
  )
  const scale = (plot.bottom - plot.top) / top
  const step = (plot.right - plot.left) / Math.max(1, columns.length)
  const width = Math.max(1, step * 0.7)
  const bars: Bar[] = []
  const xLabels: BarChart['xLabels'] = []
  columns.forEach((column, i) => {
    const x = round(plot.left + i * step + (step - width) / 2)
    let base = plot.bottom
    for (const part of column.parts) {
      if (part.value <= 0) continue
      const height = part.value * scale
      base -= height
      bars.push({
        x,
        y: round(base),
        width: round(width),
        height: round(height),
        series: `series-${part.series}`,
        title: part.title,
      })
    }
    if (i % labelEvery === 0) xLabels.push({ x: round(x + width / 2), label: column.label })
  })
  const yTicks = Array.from({ length: top / tick + 1 }, (_, i) => ({
    y: round(plot.bottom - i * tick * scale),
    label: (i * tick).toLocaleString('en'),
  }))
  return { width: size.width, height: size.height, plot, bars, yTicks, xLabels }
}

const round = (n: number) => Math.round(n * 10) / 10
