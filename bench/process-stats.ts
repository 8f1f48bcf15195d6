// What a benchmark reads of a child process from Linux's /proc.
import { readFileSync } from 'node:fs'

/** CPU seconds (user + system) the process has used, its threads included: steadier than req/s on a shared machine. */
export function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
}
