import type { Evidence } from '../rules/types.js'
import { boundedGet } from './http-get.js'

export type ProbeEvidence = Evidence['probe'] & { error?: string }

/** The application's health endpoint, once, within `timeoutMs` (D17). */
export async function probeHealth(url: string, timeoutMs: number): Promise<ProbeEvidence> {
  const result = await boundedGet(url, { timeoutMs, maxBytes: 64 * 1024 })
  if (result.ok) {
    const outcome = result.status >= 200 && result.status <= 299 ? 'ok' : 'http_error'
    return { outcome, statusCode: result.status, latencyMs: result.latencyMs }
  }
  const outcome = result.failure === 'timeout' ? 'timeout' : result.failure === 'refused' ? 'refused' : 'error'
  return { outcome, statusCode: null, latencyMs: result.latencyMs, error: result.detail }
}
