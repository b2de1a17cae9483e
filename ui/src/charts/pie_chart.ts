// A pie chart in SVG with a legend: the largest slices by name, the rest as "Other".
import { h, svg } from '../dom';
import { formatPct } from '../format';
import { OTHER_COLOUR, PALETTE } from './palette';

export interface Slice {
  label: string;
  value: number;
}

export interface PieOptions {
  title: string;
  slices: Slice[];
  formatValue: (v: number) => string;
  maxSlices?: number;
}

export function pieChart(opts: PieOptions): HTMLElement {
  const slices = topSlices(opts.slices.filter((s) => s.value > 0), opts.maxSlices ?? 9);
  const total = slices.reduce((sum, s) => sum + s.value, 0);
  const figure = h('figure', { class: 'pie', 'aria-label': opts.title }, h('figcaption', {}, opts.title));
  if (total <= 0) {
    figure.appendChild(h('p', { class: 'muted' }, 'No data'));
    return figure;
  }

  const size = 160;
  const r = size / 2 - 2;
  const c = size / 2;
  const chart = svg('svg', { viewBox: `0 0 ${size} ${size}`, width: size, height: size, role: 'img' });
  const legend = h('ul', { class: 'legend' });
  let angle = -Math.PI / 2;
  slices.forEach((slice, i) => {
    const colour = slice.label === 'Other' ? OTHER_COLOUR : PALETTE[i % PALETTE.length];
    const fraction = slice.value / total;
    const tip = `${slice.label}: ${opts.formatValue(slice.value)} (${formatPct(fraction * 100)})`;
    const shape =
      fraction >= 0.9999
        ? svg('circle', { cx: c, cy: c, r, fill: colour })
        : svg('path', { d: arcPath(c, r, angle, angle + fraction * 2 * Math.PI), fill: colour });
    const title = svg('title');
    title.textContent = tip;
    shape.appendChild(title);
    chart.appendChild(shape);
    angle += fraction * 2 * Math.PI;
    legend.appendChild(
      h(
        'li',
        { title: tip },
        h('span', { class: 'swatch', style: `background:${colour}` }),
        h('span', { class: 'legend-label', title: slice.label }, middleEllipsis(slice.label, LEGEND_CHARS)),
        h('span', { class: 'legend-value' }, formatPct(fraction * 100)),
      ),
    );
  });
  figure.appendChild(h('div', { class: 'pie-body' }, chart as unknown as Node, legend));
  return figure;
}

// The largest slices by value, then one "Other" slice (last) for the rest, merged with any
// "Other" the data already has.
export function topSlices(slices: Slice[], max: number): Slice[] {
  const named = slices.filter((s) => s.label !== 'Other').sort((a, b) => b.value - a.value);
  let other = slices.filter((s) => s.label === 'Other').reduce((sum, s) => sum + s.value, 0);
  const keep = other > 0 || named.length > max ? max - 1 : max;
  other += named.slice(keep).reduce((sum, s) => sum + s.value, 0);
  const top = named.slice(0, keep);
  return other > 0 ? [...top, { label: 'Other', value: other }] : top;
}

function arcPath(c: number, r: number, from: number, to: number): string {
  const x0 = c + r * Math.cos(from);
  const y0 = c + r * Math.sin(from);
  const x1 = c + r * Math.cos(to);
  const y1 = c + r * Math.sin(to);
  const large = to - from > Math.PI ? 1 : 0;
  return `M${c},${c} L${x0.toFixed(2)},${y0.toFixed(2)} A${r},${r} 0 ${large} 1 ${x1.toFixed(2)},${y1.toFixed(2)} Z`;
}

// Op names that are scope paths differ at their end ("replica_4/.../layer_3/Cast"): a long one
// keeps its start and its end, the whole on hover.
const LEGEND_CHARS = 44;

export function middleEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor((max - 1) / 3);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}
