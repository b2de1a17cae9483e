// Sorting and filtering of table rows, apart from the DOM so it can be tested alone.

export type CellValue = string | number | boolean | null | undefined;

export interface SortState {
  key: string;
  descending: boolean;
}

// Keeps the rows whose text in any of the given columns contains every word of the filter
// (case-insensitive), so "conv fused" finds "fused_conv2d".
export function filterRows<Row>(rows: Row[], filter: string, texts: ((row: Row) => CellValue)[]): Row[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return rows;
  return rows.filter((row) => {
    const haystack = texts.map((t) => String(t(row) ?? '')).join('\u0000').toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

// A stable sort: numbers by value, text by natural order; empty cells always last.
export function sortRows<Row>(rows: Row[], value: (row: Row) => CellValue, descending: boolean): Row[] {
  const dir = descending ? -1 : 1;
  const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
  return rows
    .map((row, index) => ({ row, index, v: value(row) }))
    .sort((a, b) => {
      const ae = a.v === null || a.v === undefined || a.v === '';
      const be = b.v === null || b.v === undefined || b.v === '';
      if (ae || be) return ae === be ? a.index - b.index : ae ? 1 : -1;
      let c: number;
      if (typeof a.v === 'number' && typeof b.v === 'number') c = a.v - b.v;
      else c = collator.compare(String(a.v), String(b.v));
      return c !== 0 ? c * dir : a.index - b.index;
    })
    .map((x) => x.row);
}
