// A grouped bar chart in SVG: for each group (a step-time category), one bar per series (run A,
// run B) side by side, on a value axis with ticks and its unit. Bars take the group's colour;
// the series differ in opacity, which the legend shows.
import { h, svg } from '../dom';

export interface BarGroup {
  label: string;
  colour: string;
  values: number[]; // one per series
}

export interface GroupedBarOptions {
  title: string;
  series: string[]; // names, e.g. ['A: run1', 'B: run2']
  groups: BarGroup[];
  unit: string; // the axis' unit, e.g. 'ms'
  formatValue: (v: number) => string;
}

const SERIES_OPACITY = [0.45, 1, 0.7, 0.25];
const WIDTH = 900;
const HEIGHT = 300;
const MARGIN = { left: 64, right: 16, top: 16, bottom: 56 };

// Round tick steps (1, 2, 5 times a power of ten) giving about five ticks up to `max`.
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0];
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

export function groupedBarChart(opts: GroupedBarOptions): HTMLElement {
  const max = Math.max(0, ...opts.groups.flatMap((g) => g.values));
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1] || 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const y = (v: number) => MARGIN.top + plotH - (v / top) * plotH;
  const groupW = plotW / Math.max(1, opts.groups.length);
  const barW = Math.min(36, (groupW * 0.7) / Math.max(1, opts.series.length));

  const chart = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'grouped-bar-chart',
    role: 'img',
    'aria-label': opts.title,
  });
  for (const t of ticks) {
    chart.appendChild(svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(t), y2: y(t), class: 'gridline' }));
    const label = svg('text', { x: MARGIN.left - 6, y: y(t) + 4, 'text-anchor': 'end', class: 'tick' });
    label.textContent = `${Number(t.toPrecision(6))}`;
    chart.appendChild(label);
  }
  const unit = svg('text', {
    x: 14,
    y: MARGIN.top + plotH / 2,
    'text-anchor': 'middle',
    transform: `rotate(-90 14 ${MARGIN.top + plotH / 2})`,
    class: 'axis-title',
  });
  unit.textContent = opts.unit;
  chart.appendChild(unit);

  opts.groups.forEach((g, gi) => {
    const x0 = MARGIN.left + gi * groupW + (groupW - barW * opts.series.length) / 2;
    g.values.forEach((v, si) => {
      const rect = svg('rect', {
        x: x0 + si * barW,
        y: y(v),
        width: Math.max(1, barW - 2),
        height: Math.max(0, MARGIN.top + plotH - y(v)),
        fill: g.colour,
        'fill-opacity': SERIES_OPACITY[si % SERIES_OPACITY.length],
        stroke: g.colour,
        'data-series': si,
        'data-group': g.label,
      });
      const tip = svg('title');
      tip.textContent = `${g.label}, ${opts.series[si]}: ${opts.formatValue(v)}`;
      rect.appendChild(tip);
      chart.appendChild(rect);
    });
    const label = svg('text', {
      x: MARGIN.left + gi * groupW + groupW / 2,
      y: MARGIN.top + plotH + 18,
      'text-anchor': 'middle',
      class: 'group-label',
    });
    label.textContent = g.label;
    chart.appendChild(label);
  });
  chart.appendChild(
    svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(0), y2: y(0), class: 'axis' }),
  );

  const legend = h(
    'div',
    { class: 'grouped-bar-legend' },
    ...opts.series.map((name, si) =>
      h(
        'span',
        { class: 'legend-item' },
        h('span', {
          class: 'legend-swatch',
          style: `opacity: ${SERIES_OPACITY[si % SERIES_OPACITY.length]}`,
        }),
        name,
      ),
    ),
  );
  return h('figure', { class: 'grouped-bar-figure' }, h('figcaption', {}, opts.title), chart, legend);
}
