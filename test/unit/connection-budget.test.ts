import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/load.js'
import { connectionBudget, readOpenFilesLimit } from '../../src/http/connection-budget.js'

// docs/operations.md, "Connections and file descriptors": the arithmetic of the bound.

const limits = (env: Record<string, string> = {}) => loadConfig(env, '/srv').connectionLimits
const limitsFile = (soft: string) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max processes             63304                63304                processes ',
    `Max open files            ${soft}                 524288               files     `,
  ].join('\n')

describe('the connection bound', () => {
  it('reads the soft open-files limit of /proc/self/limits', () => {
    expect(readOpenFilesLimit(() => limitsFile('8192'))).toBe(8192)
    expect(readOpenFilesLimit(() => limitsFile('unlimited'))).toBe(Number.POSITIVE_INFINITY)
    expect(
      readOpenFilesLimit(() => {
        throw new Error('ENOENT')
      }),
    ).toBeNull()
    // This process's own: a number.
    expect(readOpenFilesLimit()).toBeGreaterThan(0)
  })

  it('is the limit less 256 + 2 x DIAG_WORKER_CONCURRENCY unless DIAG_MAX_CONNECTIONS sets it', () => {
    expect(connectionBudget(limits(), { openFiles: 8192, workerConcurrency: 128 })).toMatchObject({
      maxConnections: 7680,
      reserve: 512,
      connectionsPerToken: 64,
      webhookReservedConnections: 64,
    })
    expect(connectionBudget(limits(), { openFiles: 8192, workerConcurrency: 8 }).maxConnections).toBe(8192 - 272)
    const set = limits({ DIAG_MAX_CONNECTIONS: '500', DIAG_WEBHOOK_RESERVED_CONNECTIONS: '20' })
    expect(connectionBudget(set, { openFiles: 8192, workerConcurrency: 128 })).toMatchObject({
      maxConnections: 500,
      webhookReservedConnections: 20,
    })
    expect(connectionBudget(limits(), { openFiles: null, workerConcurrency: 128 }).maxConnections).toBe(1024)
  })

  it.each([
    ['a DIAG_MAX_CONNECTIONS above the limit less the reserve', { DIAG_MAX_CONNECTIONS: '7681' }, 8192],
    ['a limit that leaves fewer than 32 connections', {}, 543],
    ['a webhook share as large as the bound', { DIAG_MAX_CONNECTIONS: '64' }, 8192],
  ])('stops the start (exit 78) on %s', (_what, env, openFiles) => {
    expect(() => connectionBudget(limits(env), { openFiles, workerConcurrency: 128 })).toThrow(ConfigError)
  })
})
