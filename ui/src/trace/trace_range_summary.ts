// The trace viewer's range selection (shift-drag, or drag in measure mode): what the range
// holds on the tracks the drag crossed (all of them when it crossed none), per event name,
// its count and total time inside the range, the longest first, like Perfetto's area
// selection. The server counts every event, merged or not.
import { h } from '../dom';
import { formatPs } from './time_scale';
import type { TraceRangeSummary } from './trace_api';

export function rangeSummaryView(s: TraceRangeSummary, tracks: string[]): HTMLElement {
  const span = s.end_ps - s.start_ps;
  const shown = s.names.length < s.distinct_names ? ` (the ${s.names.length} longest shown)` : '';
  const where = tracks.length === 0 ? 'every track' : tracks.length <= 3 ? tracks.join(', ') : `${tracks.length} tracks`;
  return h(
    'div',
    { class: 'trace-range-summary', 'data-testid': 'range-summary', 'data-tracks': String(tracks.length) },
    h('h2', { class: 'trace-details-name' }, `Selected range: ${formatPs(span)}`),
    h(
      'p',
      { class: 'muted' },
      `${formatPs(s.start_ps)} to ${formatPs(s.end_ps)} on ${where} · ${s.events.toLocaleString()} events · ${s.distinct_names.toLocaleString()} names${shown}`,
    ),
    h(
      'table',
      { class: 'trace-stats trace-range-table', 'aria-label': 'Events in the selected range' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', { class: 'num' }, 'Count'), h('th', { class: 'num' }, 'Total time in range'), h('th', { class: 'num' }, 'Average'))),
      h(
        'tbody',
        {},
        ...s.names.map((n) =>
          h(
            'tr',
            {},
            h('td', { class: 'name', title: n.name }, n.name),
            h('td', { class: 'num' }, n.count.toLocaleString()),
            h('td', { class: 'num' }, formatPs(n.total_ps)),
            h('td', { class: 'num' }, formatPs(n.total_ps / n.count)),
          ),
        ),
      ),
    ),
  );
}
