// The trace viewer's range selection (shift-drag, or drag in measure mode): what the range
// holds on the tracks the drag crossed (all of them when it crossed none), per track and event
// name, its count and self time inside the range (time in nested events left out, so a Python
// stack's frames are not each counted whole), the longest first, like Perfetto's area
// selection. A row is one track's: no row exceeds the range, and the busy time of all rows
// never exceeds the range's length times the tracks. The server counts every event, merged
// or not.
import { h } from '../dom';
import { shortenNames } from '../name_shortening';
import { formatPs } from './time_scale';
import type { TraceRangeName, TraceRangeSummary } from './trace_api';

const NAME_CHARS = 90;

export function rangeSummaryView(s: TraceRangeSummary, tracks: string[]): HTMLElement {
  const span = s.end_ps - s.start_ps;
  const shown = s.names.length < s.distinct_names ? ` (the ${s.names.length} longest shown)` : '';
  const where = tracks.length === 0 ? 'every track' : tracks.length <= 3 ? tracks.join(', ') : `${tracks.length} tracks`;
  const hosts = new Set(s.names.map((n) => n.host));
  // A name on several hosts (ranks): each row says its host, and the name says on how many.
  const hostsOf = new Map<string, Set<string>>();
  for (const n of s.names) hostsOf.set(n.name, (hostsOf.get(n.name) ?? new Set()).add(n.host));
  const place = (n: TraceRangeName) => `${hosts.size > 1 ? n.host + ' · ' : ''}${n.section} · ${n.track}`;
  const distinct = [...new Set(s.names.map((n) => n.name))];
  const shortForms = shortenNames(distinct, NAME_CHARS);
  const short = new Map(distinct.map((n, i) => [n, shortForms[i]]));
  const pct = (ps: number) => `${((100 * ps) / Math.max(span, 1)).toFixed(1)}%`;
  return h(
    'div',
    { class: 'trace-range-summary', 'data-testid': 'range-summary', 'data-tracks': String(tracks.length), 'data-span-ps': String(span), 'data-busy-ps': String(s.busy_ps), 'data-track-count': String(s.tracks) },
    h('h2', { class: 'trace-details-name' }, `Selected range: ${formatPs(span)}`),
    h(
      'p',
      { class: 'muted' },
      `${formatPs(s.start_ps)} to ${formatPs(s.end_ps)} on ${where} · ${s.events.toLocaleString()} events · ` +
        `busy ${formatPs(s.busy_ps)} of ${formatPs(span * s.tracks)} (${s.tracks.toLocaleString()} track${s.tracks === 1 ? '' : 's'} × the range)${shown}`,
    ),
    h(
      'table',
      { class: 'trace-stats trace-range-table', 'aria-label': 'Events in the selected range' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Name'),
          h('th', { class: 'num' }, 'Count'),
          h('th', { class: 'num', title: 'Time inside the range in the event itself, less the events nested in it (one row per track and name: no row exceeds the range)' }, 'Self time'),
          h('th', { class: 'num' }, '% of range'),
          h('th', { class: 'num', title: 'Time inside the range, nested events included' }, 'With nested'),
          hosts.size > 1 ? h('th', { class: 'num', title: 'How many hosts (ranks) ran this name in the range: each has its own rows' }, 'On hosts') : null,
          h('th', {}, hosts.size > 1 ? 'Host · track' : 'Track'),
        ),
      ),
      h(
        'tbody',
        {},
        ...s.names.map((n) => {
          const on = hostsOf.get(n.name)?.size ?? 1;
          return h(
            'tr',
            { 'data-self-ps': String(n.self_ps), 'data-total-ps': String(n.total_ps), 'data-line': String(n.line), 'data-host': n.host },
            h('td', { class: 'name', title: on > 1 ? `${n.name}\n(on ${on} hosts; this row: ${n.host})` : n.name }, short.get(n.name) ?? n.name),
            h('td', { class: 'num' }, n.count.toLocaleString()),
            h('td', { class: 'num' }, formatPs(n.self_ps)),
            h('td', { class: 'num' }, pct(n.self_ps)),
            h('td', { class: 'num muted' }, formatPs(n.total_ps)),
            hosts.size > 1 ? h('td', { class: 'num on-hosts' }, `${on} of ${hosts.size}`) : null,
            h('td', { class: 'track', title: place(n) }, place(n)),
          );
        }),
      ),
    ),
  );
}
