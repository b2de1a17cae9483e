import { nameTail } from './data_table';
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

describe('name tails', () => {
  it('keeps the last parts of a scope path, or the last characters', () => {
    expect(nameTail('aten::mm')).toBe('');
    expect(nameTail('replica_4/bert_span_labeler/bert_encoder_1/transformer/layer_3/Cast:Cast')).toBe('/layer_3/Cast:Cast');
    const kernel = 'void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float)';
    expect(nameTail(kernel)).toBe(kernel.slice(-32));
  });
});
