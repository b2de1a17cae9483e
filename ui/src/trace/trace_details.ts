// The trace viewer's details pane: the selected event's times, place, step, parent, stats and
// flows; the parent and the flows' other ends are links that select those events.
import { clear, h } from '../dom';
import { formatPs } from './time_scale';
import type { TraceEventDetails, TraceEventRef } from './trace_api';
import { shortenName } from '../name_shortening';

const HEADING_CHARS = 100;

export function showDetailsMessage(pane: HTMLElement, text: string): void {
  clear(pane);
  pane.append(h('p', { class: 'muted' }, text));
}

export function showDetails(pane: HTMLElement, d: TraceEventDetails, open: (ev: TraceEventRef) => void): void {
  clear(pane);
  const link = (ev: TraceEventRef) =>
    h(
      'a',
      {
        href: '#',
        onclick: (e: Event) => {
          e.preventDefault();
          open(ev);
        },
      },
      ev.name,
    );
  const rows: [string, Node | string][] = [
    ['Start', formatPs(d.start_ps)],
    ['Duration', formatPs(d.duration_ps)],
    ['Where', `${d.host ? d.host + ' · ' : ''}${d.plane} · ${d.line}`],
  ];
  // A templated kernel's name runs to hundreds of characters: the heading shows it short.
  const heading = shortenName(d.name, HEADING_CHARS);
  if (heading !== d.name) rows.unshift(['Name', h('span', { class: 'trace-details-full-name' }, d.name)]);
  // An XLA op is named by its HLO op; the instruction's whole text follows.
  if (d.long_name) rows.push(['HLO', h('span', { class: 'trace-details-full-name', 'data-testid': 'hlo-text' }, d.long_name)]);
  if (d.display_name && d.display_name !== d.name) rows.push(['Display name', d.display_name]);
  if (d.step) rows.push(['Step', `${d.step.step_num} (${d.step.duration_ms.toFixed(3)} ms)`]);
  if (d.parent) rows.push(['Parent', link(d.parent)]);
  pane.append(
    h('h2', { class: 'trace-details-name', title: d.long_name ?? d.name }, heading),
    h('dl', { class: 'kv' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
  );
  if (d.stats.length)
    pane.append(
      h('h3', {}, 'Stats'),
      h(
        'table',
        { class: 'trace-stats' },
        h('tbody', {}, ...d.stats.map((s) => h('tr', {}, h('th', {}, s.name), h('td', {}, String(s.value))))),
      ),
    );
  if (d.flows.length)
    pane.append(
      h('h3', {}, 'Flows'),
      h(
        'ul',
        { class: 'trace-flows' },
        ...d.flows.map((f) =>
          h('li', {}, `${f.direction === 'out' ? '→' : '←'} ${f.kind}: `, link(f), ` · ${f.line} · ${formatPs(f.start_ps)}`),
        ),
      ),
    );
}
