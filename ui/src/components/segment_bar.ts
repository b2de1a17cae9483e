// One bar split into coloured segments (a whole divided by kind), with a legend of each
// segment's value: how a single total splits, where a chart over steps would be too much.
import { h } from '../dom';

export interface Segment {
  label: string;
  colour: string;
  value: number;
  text: string; // the value as the legend shows it
}

export function segmentBar(segments: Segment[], label: string): HTMLElement {
  const shown = segments.filter((s) => s.value > 0);
  const total = shown.reduce((sum, s) => sum + s.value, 0);
  const bar = h(
    'div',
    { class: 'segment-bar', role: 'img', 'aria-label': label },
    ...shown.map((s) =>
      h('span', { class: 'segment', style: `flex-grow:${s.value / total};background:${s.colour}`, title: `${s.label}: ${s.text}`, 'data-kind': s.label }),
    ),
  );
  const legend = h(
    'ul',
    { class: 'legend segment-legend' },
    ...shown.map((s) =>
      h('li', {}, h('span', { class: 'swatch', style: `background:${s.colour}` }), h('span', { class: 'legend-label' }, s.label), h('span', { class: 'legend-value' }, s.text)),
    ),
  );
  return h('div', { class: 'segment-figure' }, bar, legend);
}
