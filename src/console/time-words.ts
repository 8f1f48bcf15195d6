import { formatDuration } from '../report/report-model.js'

// Times and durations as the console shows them: UTC, to the second, with the machine form
// kept for <time datetime>; short durations to the millisecond (a diagnosis takes less than
// a second), longer ones as the reports write them.

export interface ShownTime {
  iso: string
  text: string
}

export function shownTime(at: number | string | null): ShownTime | null {
  if (at === null) return null
  const date = new Date(at)
  if (Number.isNaN(date.getTime())) return null
  const iso = date.toISOString()
  return { iso, text: `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` }
}

/** "850 ms", "2.4 s", then "1m 5s", "3h 2m", "2d 1h". */
export function shownDuration(ms: number): string {
  const abs = Math.abs(ms)
  const sign = ms < 0 ? '−' : ''
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`
  if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(1)} s`
  return `${sign}${formatDuration(abs)}`
}
