// Memory over time (uPlot), as TensorBoard's memory profile draws it: stack, heap and free
// memory stacked on the left axis, fragmentation as a line on the right axis, and a card
// that follows the cursor with the allocation or free behind the point.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './memory_timeline_chart.css';
import { clear, h } from '../dom';
import { formatBytes, formatMs, formatPct } from '../format';
import { bytesAxis, msAxis, tickText } from './axis_units';

export interface MemoryPoint {
  time_ms: number;
  stack_bytes: number;
  heap_bytes: number;
  free_bytes: number;
  memory_in_use_bytes: number;
  fragmentation_pct: number;
  event: string; // "allocation" or "deallocation"
  requested_bytes: number; // negative for a free
  allocation_bytes: number;
  op: string;
  step: number;
  region_type: string;
  data_type: string;
  shape: string;
}

// Colours no step-time category uses (red is waiting for input on every page): stack brown,
// heap indigo, free a light green, fragmentation a dark line.
const STACK = '#8d6e63';
const HEAP = '#5c6bc0';
const FREE = '#81c995';
const FRAGMENTATION = '#3c4043';

export interface MemoryTimelineOptions {
  // Free memory on top of the rest: hidden when it would flatten the memory in use (a large
  // pool barely used); the legend brings it back.
  showFree?: boolean;
  height?: number;
}

export function memoryTimelineChart(
  points: MemoryPoint[],
  onDispose: (cleanup: () => void) => void,
  options: MemoryTimelineOptions = {},
): HTMLElement {
  const height = options.height ?? 300;
  const host = h('div', { class: 'chart memory-timeline', role: 'img', 'aria-label': 'Memory timeline' });
  if (points.length === 0) {
    host.appendChild(h('p', { class: 'muted' }, 'No memory events'));
    return host;
  }
  const x = points.map((p) => p.time_ms);
  const stack = points.map((p) => p.stack_bytes);
  const heap = points.map((p) => p.heap_bytes);
  const free = points.map((p) => p.free_bytes);
  // Each band is drawn at its cumulative height, top band first, so the fills stack.
  const upToHeap = points.map((p) => p.stack_bytes + p.heap_bytes);
  const upToFree = points.map((p) => p.stack_bytes + p.heap_bytes + p.free_bytes);
  const stepped = uPlot.paths.stepped!({ align: 1 });
  const peak = upToHeap.reduce((best, v, i) => (v > upToHeap[best] ? i : best), 0);
  const band = (label: string, colour: string, own: number[], show = true): uPlot.Series => ({
    label,
    show,
    stroke: colour,
    fill: `${colour}55`,
    width: 1,
    paths: stepped,
    points: { show: false },
    value: (_u, _v, _si, idx) => formatBytes(own[idx ?? peak]),
  });
  const series: uPlot.Series[] = [
    // Before any hover the legend reads the peak's values.
    { label: 'Time', value: (_u, v) => (v === null ? `peak, ${formatMs(x[peak])}` : formatMs(v)) },
    band('Free', FREE, free, options.showFree ?? true),
    band('Heap', HEAP, heap),
    band('Stack', STACK, stack),
    {
      label: 'Fragmentation',
      scale: 'pct',
      stroke: FRAGMENTATION,
      width: 1.5,
      paths: stepped,
      points: { show: false },
      value: (_u, v, _si, idx) => formatPct(v ?? points[idx ?? peak].fragmentation_pct),
    },
  ];
  const data: uPlot.AlignedData = [x, upToFree, upToHeap, stack, points.map((p) => p.fragmentation_pct)];

  const card = h('div', { class: 'memory-card', 'data-testid': 'memory-event-card', hidden: true });
  const showEvent = (u: uPlot) => {
    const idx = u.cursor.idx;
    if (idx === null || idx === undefined || u.cursor.left === undefined || u.cursor.left < 0) {
      card.hidden = true;
      return;
    }
    fillCard(card, points[idx]);
    card.hidden = false;
    const left = u.cursor.left + 16;
    card.style.left = `${left + 240 > u.over.clientWidth ? u.cursor.left - 256 : left}px`;
    card.style.top = '8px';
  };

  // One unit per axis, with round ticks in it.
  const timeUnit = msAxis(Math.max(...x));
  const memoryUnit = bytesAxis(Math.max(...upToFree, ...upToHeap));
  host.setAttribute('aria-label', `Memory timeline: time in ${timeUnit.unit}, memory in ${memoryUnit.unit}`);

  let plot: uPlot | null = null;
  const resize = new ResizeObserver(([entry]) => {
    const width = Math.max(240, Math.floor(entry.contentRect.width));
    if (plot) {
      plot.setSize({ width, height });
      return;
    }
    plot = new uPlot(
      {
        width,
        height,
        series,
        scales: {
          x: { time: false },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] },
          pct: { range: [0, 100] },
        },
        axes: [
          { label: `Time (${timeUnit.unit})`, incrs: timeUnit.incrs, values: (_u, splits) => splits.map((v) => tickText(v, timeUnit)) },
          { label: `Memory (${memoryUnit.unit})`, incrs: memoryUnit.incrs, values: (_u, splits) => splits.map((v) => tickText(v, memoryUnit)), size: 60 },
          {
            label: 'Fragmentation',
            scale: 'pct',
            side: 1,
            grid: { show: false },
            values: (_u, splits) => splits.map((v) => `${v}%`),
          },
        ],
        cursor: { points: { show: false }, drag: { x: true, y: false } },
        legend: { live: true },
        hooks: { setCursor: [showEvent] },
      },
      data,
      host,
    );
    plot.over.appendChild(card);
  });
  resize.observe(host);
  onDispose(() => {
    resize.disconnect();
    plot?.destroy();
  });
  return host;
}

// The pop-up of TensorBoard's timeline: the event and the memory in use after it.
function fillCard(card: HTMLElement, p: MemoryPoint): void {
  clear(card);
  const rows: [string, string][] = [
    ['Time', formatMs(p.time_ms)],
    ['Event', p.event],
    ['Requested size', formatBytes(p.requested_bytes)],
    ['Allocation size', formatBytes(p.allocation_bytes)],
    ['Op', p.op || '–'],
    ['Step', p.step >= 0 ? String(p.step) : '–'],
    ['Region type', p.region_type || '–'],
    ['Data type', p.data_type || '–'],
    ['Shape', p.shape || '–'],
    ['Memory in use', formatBytes(p.memory_in_use_bytes)],
  ];
  card.appendChild(h('dl', {}, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])));
}
