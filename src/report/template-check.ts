import type { DiagnosisModel, RecoveryModel } from './report-model.js'
import { type ReportTemplates, TemplateError } from './templates.js'

const alert = {
  eventId: '00000000-0000-7000-8000-000000000000',
  incidentId: '00000000-0000-7000-8000-000000000001',
  alertname: 'TemplateCheck',
  instance: 'app-00',
  severity: 'critical',
  status: 'firing',
  startsAt: '2026-01-01T00:00:00.000Z',
  receivedAt: '2026-01-01T00:00:01.000Z',
  fingerprint: '0000000000000000',
  labels: { alertname: 'TemplateCheck' },
  annotations: { summary: 'fixture' },
  generatorURL: null,
}
const finding = {
  id: 'builtin-TD-08',
  branch: 'TD-08',
  ruleName: 'UnmappedEvidence',
  category: 'general',
  classification: 'undetermined',
  confidence: null,
  assessment: 'Fixture.',
  origin: 'built-in' as const,
  basis: 'Fixture.',
  corroboratedBy: ['the health probe timed out'],
}

/**
 * D23: templates are rendered against a fixture at startup; a template that fails keeps
 * the service not ready instead of failing on the first real alert.
 */
export function checkTemplates(templates: ReportTemplates): void {
  const diagnosis: DiagnosisModel = {
    generatedAt: alert.receivedAt,
    version: '0.0.0',
    alert,
    lifecycle: 'Re-fired: fixture.',
    labels: [{ name: 'alertname', value: 'TemplateCheck' }],
    annotations: [],
    primary: finding,
    others: [finding],
    actions: ['Check.'],
    logs: {
      files: [{ file: '/x.log', lines: 1, bytes: 2, truncated: false }],
      excerpts: [{ branch: 'TD-08', file: '/x.log', lines: [{ number: '1', text: 'x', match: true }] }],
      empty: false,
    },
    gc: {
      collections: 2,
      fullCollections: 1,
      fullCollectionsHighOccupancy: 1,
      maxPauseMs: 1200,
      totalPauseMs: 1210,
      heapAfterLast: { usedKiB: 1024, capacityKiB: 2048 },
      heapAfter: '1 MiB of 2 MiB (50 %)',
    },
    runtime: {
      instanceKnown: true,
      container: {
        records: [
          {
            timestamp: alert.startsAt,
            container: 'app-00',
            event: 'die',
            exitCode: '137',
            oomKilled: true,
            health: null,
            reason: 'OOMKilled',
          },
        ],
        invalidLines: 0,
        skipped: [],
        error: null,
      },
      metrics: {
        status: 'ok',
        heapUsedBytes: 1024,
        heapMaxBytes: 2048,
        heapUsedRatio: 0.5,
        threads: 10,
        gcSeconds: 1,
        gcRate: { windowSeconds: 5, gcSeconds: 1, ratio: 0.2 },
      },
      metricsFacts: ['heap used 1 KiB of 2 KiB (50 %)', '10 live threads', 'GC 1 s of the 5 s between two reads'],
      probe: null,
    },
    provenance: {
      builtinVersions: 'TD 1.0.0',
      customRules: 0,
      lastCustomRuleId: null,
      rulesEvaluated: 20,
      engine: '00000000-0000-0000-0000-000000000000 (20 rules)',
      rulesMatched: 'TD-08',
      bounds: { maxLines: 500, maxBytes: 524288, httpTimeoutMs: 3000 },
    },
  }
  const recovery: RecoveryModel = {
    generatedAt: alert.receivedAt,
    version: '0.0.0',
    alert: { ...alert, status: 'resolved' },
    incident: {
      id: alert.incidentId,
      openedAt: alert.startsAt,
      resolvedAt: alert.receivedAt,
      duration: '1s',
      notifiedAfter: '0s',
      firingEventId: alert.eventId,
    },
    headline: { branch: 'TD-08', ruleName: 'UnmappedEvidence', category: 'general', classification: 'undetermined' },
  }
  for (const rendered of [templates.diagnosis(diagnosis), templates.recovery(recovery)]) {
    if (!rendered.text.trim() || !rendered.html.trim())
      throw new TemplateError('a report template renders an empty body')
  }
}
