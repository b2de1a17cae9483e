import { describe, expect, it } from 'vitest';
import { filterRows, sortRows } from './table_model';

interface Op {
  name: string;
  ms: number | null;
}
const ops: Op[] = [
  { name: 'fused_conv2d', ms: 5 },
  { name: 'MatMul', ms: 12 },
  { name: 'op10', ms: null },
  { name: 'op9', ms: 1 },
];

describe('filterRows', () => {
  it('keeps rows holding every word, ignoring case', () => {
    expect(filterRows(ops, 'CONV fused', [(o) => o.name]).map((o) => o.name)).toEqual(['fused_conv2d']);
  });
  it('keeps everything for an empty filter', () => {
    expect(filterRows(ops, '  ', [(o) => o.name])).toHaveLength(4);
  });
});

describe('sortRows', () => {
  it('sorts numbers descending with empty cells last', () => {
    expect(sortRows(ops, (o) => o.ms, true).map((o) => o.name)).toEqual(['MatMul', 'fused_conv2d', 'op9', 'op10']);
  });
  it('sorts text in natural order', () => {
    expect(sortRows(ops, (o) => o.name, false).map((o) => o.name)).toEqual(['fused_conv2d', 'MatMul', 'op9', 'op10']);
  });
});
