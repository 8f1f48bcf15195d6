import { categories } from '../rules/types.js'
import type { listPage } from '../store/incident-views.js'
import { afterCursor, confidences, filtered, type ListQuery, listSearch, states } from './list-query.js'
import { shownTime } from './time-words.js'

// The list page's model: the filter form as the query set it, the rows, the page links.

type Summary = ReturnType<typeof listPage>['incidents'][number]

const options = (values: readonly string[], chosen: string | undefined) =>
  values.map((value) => ({ value, selected: value === chosen }))

function row(incident: Summary) {
  const diagnosis = incident.diagnosis
  return {
    href: `/console/incidents/${encodeURIComponent(incident.id)}`,
    id: incident.id,
    status: incident.status,
    alertname: incident.alertname,
    instance: incident.instance,
    severity: incident.severity,
    startsAt: shownTime(incident.startsAt),
    openedAt: shownTime(incident.openedAt),
    branch: diagnosis?.branch ?? null,
    ruleName: diagnosis?.ruleName ?? null,
    category: diagnosis?.category ?? null,
    classification: diagnosis?.classification ?? null,
    confidence: diagnosis?.confidence ?? null,
    refires: incident.refires,
  }
}

export function listView(query: ListQuery, page: ReturnType<typeof listPage>) {
  return {
    filters: {
      states: options(states, query.state),
      categories: options(categories, query.category),
      confidences: options(confidences, query.confidence),
      branch: query.branch ?? '',
      instance: query.instance ?? '',
      alertname: query.alertname ?? '',
      from: query.from ?? '',
      to: query.to ?? '',
      limit: query.limit ?? '',
    },
    filtered: filtered(query),
    rows: page.incidents.map(row),
    empty: page.incidents.length === 0,
    next: page.next ? `/console/incidents${listSearch(query, { after: afterCursor(page.next) })}` : null,
    first: query.after ? `/console/incidents${listSearch(query)}` : null,
    csv: `/console/incidents.csv${listSearch({ ...query, limit: '' })}`,
  }
}
