// roofline_model: each op's operational intensity (FLOPs per HBM byte) and attained FLOP rate
// against its device's roofline (peak FLOP rate, HBM bandwidth, and the ridge point where they
// meet), drawn on log-log axes, with the device's and each program's points in a table.
import { h } from '../dom';
import { formatCount, formatUs } from '../format';
import { dataTable } from '../components/data_table';
import { keyValueList, notice, panel } from '../components/panel';
import { toolHeader, csvButton } from '../components/page_header';
import { notesNotice, peaksText, utilText } from './xla_notes';
import type { PageContext, ToolPage } from './tool_page';

interface RooflinePoint {
  device: string;
  program: string;
  category: string;
  name: string;
  occurrences: number;
  total_time_us: number;
  total_self_time_us: number;
  flops: number;
  bytes_accessed: number;
  hbm_bytes: number;
  operational_intensity: number;
  hbm_operational_intensity: number;
  measured_flop_rate_gflops: number;
  hbm_bw_gib_s: number;
  roof_gflops: number;
  roof_fraction: number;
  bound_by: string;
}

interface RooflineDevice {
  device: string;
  host: string;
  device_type: string;
  peak_teraflops_per_second: number;
  peak_hbm_bw_gigabytes_per_second: number;
  ridge_point: number;
  busy_time_ms: number;
  total: RooflinePoint;
  programs: RooflinePoint[];
}

export interface RooflineModelData {
  devices: RooflineDevice[];
  ops: RooflinePoint[];
  notes: string[];
}

const VIEW_OPTION = 'view';

export const rooflineModelPage: ToolPage = {
  async render(root, ctx) {
    const data = await ctx.fetchData<RooflineModelData>({}); // every device: `view` is the page's own option
    root.append(toolHeader(ctx, `Run ${ctx.run}`, csvButton(ctx, {})));
    root.append(notesNotice(data.notes) ?? '');
    if (data.devices.length === 0) {
      root.append(notice('info', 'This profile has no XLA ops.'));
      return;
    }
    const device = data.devices.find((d) => d.device === ctx.options[VIEW_OPTION]) ?? data.devices[0];
    const ops = data.ops.filter((p) => p.device === device.device);
    root.append(devicePicker(data.devices, device, ctx), summary(device), panel('Roofline', plot(device, ops)));
    root.append(panel('Device and programs', pointTable([device.total, ...device.programs], 'Programs', true)));
    root.append(panel('Ops', pointTable(ops, 'Ops', false)));
  },
};


function devicePicker(devices: RooflineDevice[], chosen: RooflineDevice, ctx: PageContext): HTMLElement {
  const select = h(
    'select',
    { 'aria-label': 'Device', 'data-testid': 'device-select' },
    ...devices.map((d) => h('option', { value: d.device, selected: d === chosen }, `${d.host} ${d.device}`)),
  );
  select.addEventListener('change', () => ctx.setOption(VIEW_OPTION, select.value === devices[0].device ? undefined : select.value));
  return h('label', { class: 'inline-control' }, 'Device ', select);
}

function summary(d: RooflineDevice): HTMLElement {
  return panel(
    'Device',
    keyValueList([
      ['Device', `${d.device}${d.device_type ? ` (${d.device_type})` : ''}`],
      ['Peaks', peaksText(d.peak_teraflops_per_second, d.peak_hbm_bw_gigabytes_per_second)],
      ['Ridge point', h('span', { 'data-testid': 'ridge-point' }, d.ridge_point > 0 ? `${d.ridge_point.toFixed(1)} FLOP/byte` : '–')],
      ['Attained, all ops', `${d.total.measured_flop_rate_gflops.toFixed(1)} GFLOP/s (${utilText(d.total.roof_fraction)} of the roof)`],
    ]),
  );
}

// The roofline on log-log axes: the HBM slope up to the ridge point, the flat compute roof
// after it, and a dot per op that has both FLOPs and HBM bytes.
function plot(d: RooflineDevice, ops: RooflinePoint[]): Node {
  const points = ops.filter((p) => p.hbm_operational_intensity > 0 && p.measured_flop_rate_gflops > 0);
  const peak = d.peak_teraflops_per_second * 1e3; // GFLOP/s
  const bw = d.peak_hbm_bw_gigabytes_per_second; // GB/s: GFLOP/s per FLOP/byte
  if (points.length === 0 && peak <= 0) return h('p', { class: 'muted' }, 'No op has both FLOPs and HBM bytes, and the file has no peaks.');
  const xs = points.map((p) => p.hbm_operational_intensity).concat(d.ridge_point > 0 ? [d.ridge_point] : []);
  const ys = points.map((p) => p.measured_flop_rate_gflops).concat(peak > 0 ? [peak] : []);
  const lx0 = Math.floor(Math.log10(Math.min(...xs))) - 1, lx1 = Math.ceil(Math.log10(Math.max(...xs))) + 1;
  const ly0 = Math.floor(Math.log10(Math.min(...ys))) - 1, ly1 = Math.ceil(Math.log10(Math.max(...ys))) + 1;
  const W = 640, H = 360, M = 48;
  const sx = (x: number) => M + ((Math.log10(x) - lx0) / (lx1 - lx0)) * (W - 2 * M);
  const sy = (y: number) => H - M - ((Math.log10(y) - ly0) / (ly1 - ly0)) * (H - 2 * M);
  const NS = 'http://www.w3.org/2000/svg';
  const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text) e.textContent = text;
    return e;
  };
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-label': `Roofline of ${d.device}`, 'data-testid': 'roofline-plot' });
  svg.append(el('rect', { x: M, y: M, width: W - 2 * M, height: H - 2 * M, fill: 'none', stroke: '#dadce0' }));
  for (let e = lx0; e <= lx1; ++e) svg.append(el('text', { x: sx(10 ** e), y: H - M + 16, 'font-size': 10, 'text-anchor': 'middle' }, `1e${e}`));
  for (let e = ly0; e <= ly1; ++e) svg.append(el('text', { x: M - 4, y: sy(10 ** e) + 3, 'font-size': 10, 'text-anchor': 'end' }, `1e${e}`));
  svg.append(el('text', { x: W / 2, y: H - 8, 'font-size': 11, 'text-anchor': 'middle' }, 'Operational intensity (FLOP per HBM byte)'));
  svg.append(el('text', { x: 12, y: H / 2, 'font-size': 11, 'text-anchor': 'middle', transform: `rotate(-90 12 ${H / 2})` }, 'GFLOP/s'));
  if (peak > 0 && bw > 0) {
    const x0 = 10 ** lx0, x1 = 10 ** lx1, ridge = peak / bw;
    const roof = [[x0, x0 * bw], [ridge, peak], [x1, peak]].filter(([, y]) => y >= 10 ** ly0);
    svg.append(el('polyline', { points: roof.map(([x, y]) => `${sx(x)},${sy(y)}`).join(' '), fill: 'none', stroke: '#1a73e8', 'stroke-width': 2 }));
  }
  for (const p of points) {
    const dot = el('circle', { cx: sx(p.hbm_operational_intensity), cy: sy(p.measured_flop_rate_gflops), r: 4, fill: p.bound_by === 'HBM' ? '#e8710a' : '#188038', 'fill-opacity': 0.8 });
    dot.append(el('title', {}, `${p.name} (${p.category}): ${p.hbm_operational_intensity.toFixed(2)} FLOP/byte, ${p.measured_flop_rate_gflops.toFixed(1)} GFLOP/s, bound by ${p.bound_by}`));
    svg.append(dot);
  }
  return svg;
}

function pointTable(points: RooflinePoint[], label: string, programs: boolean): HTMLElement {
  return dataTable<RooflinePoint>({
    label,
    rows: points,
    sort: { key: 'time', descending: true },
    filterPlaceholder: 'Filter by op, category or program',
    columns: [
      programs
        ? { key: 'program', title: 'Program', name: true, value: (p) => p.program || '(all ops)' }
        : { key: 'name', title: 'Op', name: true, value: (p) => p.name },
      ...(programs ? [] : [{ key: 'category', title: 'Category', value: (p: RooflinePoint) => p.category }]),
      { key: 'count', title: 'Count', numeric: true, value: (p) => p.occurrences, render: (p) => formatCount(p.occurrences) },
      { key: 'time', title: 'Time', numeric: true, value: (p) => p.total_time_us, render: (p) => formatUs(p.total_time_us) },
      { key: 'intensity', title: 'FLOP/byte (HBM)', numeric: true, value: (p) => p.hbm_operational_intensity, render: (p) => (p.hbm_operational_intensity > 0 ? p.hbm_operational_intensity.toFixed(2) : '–') },
      { key: 'rate', title: 'GFLOP/s', numeric: true, value: (p) => p.measured_flop_rate_gflops, render: (p) => (p.measured_flop_rate_gflops > 0 ? p.measured_flop_rate_gflops.toFixed(1) : '–') },
      { key: 'hbm', title: 'HBM GiB/s', numeric: true, value: (p) => p.hbm_bw_gib_s, render: (p) => (p.hbm_bw_gib_s > 0 ? p.hbm_bw_gib_s.toFixed(1) : '–') },
      { key: 'roof', title: 'Of roof', help: 'Attained FLOP rate / the roof at its intensity', numeric: true, value: (p) => p.roof_fraction, render: (p) => utilText(p.roof_fraction) },
      { key: 'bound_by', title: 'Bound by', value: (p) => p.bound_by },
    ],
  });
}
