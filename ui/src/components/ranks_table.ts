// A multi-rank page's first table: one row per rank (named by its recorded rank), its numbers,
// and a bar on one scale across all ranks (the largest rank's bar is the full width), so a
// small figure never looks as long as a large one. Each rank links to its own trace: choosing a
// rank filters, the run stays the run. The GPU pages, the overview, the input pipeline and op
// stats all start with it.
import { h } from '../dom';
import { dataTable, type Column } from './data_table';
import { traceLinkTo } from '../trace_link';
import './ranks_table.css';

export interface BarPart {
  label: string;
  value: number;
  colour: string;
}

export interface RanksTableOptions<Row> {
  title: string; // the panel's heading; the number of ranks follows it
  run: string;
  rows: Row[];
  rank: (row: Row) => string; // the rank's name (distributedInfo.rank where recorded)
  file?: (row: Row) => string | undefined; // the host the run knows it by, where it differs
  columns: Column<Row>[]; // the numbers, after the rank
  bar: (row: Row) => BarPart[] | null; // null: the rank has none of it
  barTitle: string; // what the bar shows
  unit: (v: number) => string; // how a part's value reads on hover
  window?: HTMLElement | null; // the figures' window caption
  testid?: string;
}

// A bar whose full width is `scale`: its parts side by side, each named on hover.
function scaledBar(parts: BarPart[], scale: number, unit: (v: number) => string): HTMLElement {
  const total = parts.reduce((s, p) => s + p.value, 0);
  return h(
    'span',
    { class: 'rank-bar', title: parts.map((p) => `${p.label}: ${unit(p.value)}`).join('\n'), 'data-total': String(total), 'data-scale': String(scale) },
    ...parts.map((p) => h('span', { class: 'rank-bar-part', style: `width:${scale > 0 ? (100 * p.value) / scale : 0}%;background:${p.colour}` })),
  );
}

// The table in its panel, or null for a run of one rank.
export function ranksTable<Row>(o: RanksTableOptions<Row>): HTMLElement | null {
  if (o.rows.length < 2) return null;
  const parts = new Map(o.rows.map((r) => [r, o.bar(r)]));
  const sum = (p: BarPart[] | null | undefined) => (p ?? []).reduce((s, x) => s + x.value, 0);
  const scale = Math.max(0, ...[...parts.values()].map(sum));
  const columns: Column<Row>[] = [
    {
      key: 'rank',
      title: 'Rank',
      value: (r) => o.rank(r),
      link: (r) => (o.file?.(r) ? traceLinkTo({ run: o.run, host: o.file(r)! }, {}) : undefined),
    },
    ...o.columns,
    {
      key: 'bar',
      title: 'On one scale',
      help: `${o.barTitle}: every rank on the same scale, the full width is the largest rank's`,
      value: (r) => sum(parts.get(r)),
      render: (r) => {
        const p = parts.get(r);
        return p ? scaledBar(p, scale, o.unit) : '–';
      },
    },
  ];
  const shown = o.rows.map((r) => parts.get(r)).find((p) => p && p.length) ?? [];
  const legend = shown.length
    ? h('p', { class: 'rank-legend muted' }, ...shown.map((p) => h('span', {}, h('span', { class: 'swatch', style: `background:${p.colour}` }), p.label)))
    : null;
  return h(
    'section',
    { class: 'panel ranks-glance', 'data-testid': o.testid ?? 'ranks-glance' },
    h('h2', {}, `${o.title} (${o.rows.length} ranks)`),
    o.window ?? null,
    legend,
    dataTable({ label: 'Ranks', rows: o.rows, columns, filterable: false, sticky: 1 }),
  );
}

// A numeric column whose value may be missing (a rank without that data): '–'.
export function numberColumn<Row>(key: string, title: string, value: (r: Row) => number | null, render: (v: number) => string, help?: string): Column<Row> {
  return {
    key,
    title,
    numeric: true,
    help,
    value,
    render: (r) => {
      const v = value(r);
      return v === null ? '–' : render(v);
    },
  };
}
