// Stacked bars over steps (uPlot): each step's time split into categories, first series at
// the bottom. uPlot draws bars from zero, so each series is drawn at its cumulative height,
// tallest first, and the legend shows the series' own values.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from '../dom';

export interface StackedSeries {
  label: string;
  colour: string;
  values: number[];
}

export interface StackedBarOptions {
  labels: string[]; // one per bar, e.g. the step number
  series: StackedSeries[]; // bottom first
  xLabel: string;
  formatValue: (v: number) => string;
  height?: number;
  label: string; // accessible name
}

export function stackedBarChart(opts: StackedBarOptions, onDispose: (cleanup: () => void) => void): HTMLElement {
  const host = h('div', { class: 'chart', role: 'img', 'aria-label': opts.label });
  const shown = opts.series.filter((s) => s.values.some((v) => v > 0));
  if (opts.labels.length === 0 || shown.length === 0) {
    host.appendChild(h('p', { class: 'muted' }, 'No steps to show'));
    return host;
  }

  const cumulative: number[][] = [];
  shown.forEach((s, i) => cumulative.push(s.values.map((v, j) => v + (i > 0 ? cumulative[i - 1][j] : 0))));
  const order = shown.map((_, i) => i).reverse();
  const bars = uPlot.paths.bars!({ size: [0.7, 48], gap: 1 });
  const x = opts.labels.map((_, i) => i);
  const data: uPlot.AlignedData = [x, ...order.map((i) => cumulative[i])];
  const labelAt = (i: number | null) => (i === null ? '' : (opts.labels[Math.round(i)] ?? ''));
  // Before any hover the legend gives each category's average over the steps, so it reads as
  // a legend at once; hovering a bar shows that step's values.
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const series: uPlot.Series[] = [
    { label: opts.xLabel, value: (_u, v) => (v === null ? 'average' : labelAt(v)) },
    ...order.map(
      (i): uPlot.Series => ({
        label: shown[i].label,
        fill: shown[i].colour,
        stroke: shown[i].colour,
        width: 0,
        paths: bars,
        points: { show: false },
        value: (_u, _v, _si, idx) =>
          opts.formatValue(idx === null || idx === undefined ? mean(shown[i].values) : shown[i].values[idx]),
      }),
    ),
  ];

  let plot: uPlot | null = null;
  const resize = new ResizeObserver(([entry]) => {
    const width = Math.max(240, Math.floor(entry.contentRect.width));
    if (plot) {
      plot.setSize({ width, height: opts.height ?? 260 });
      return;
    }
    plot = new uPlot(
      {
        width,
        height: opts.height ?? 260,
        series,
        scales: {
          x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
          // Bars start at zero, or short steps would look like no time at all.
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] },
        },
        axes: [
          {
            label: opts.xLabel,
            grid: { show: false },
            incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
            // Whole bars only: label the ticks that fall on a bar.
            values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? labelAt(v) : '')),
          },
          { values: (_u, splits) => splits.map((v) => opts.formatValue(v)), size: 70 },
        ],
        cursor: { points: { show: false }, drag: { x: false, y: false } },
        legend: { live: true },
      },
      data,
      host,
    );
  });
  resize.observe(host);
  onDispose(() => {
    resize.disconnect();
    plot?.destroy();
  });
  return host;
}
