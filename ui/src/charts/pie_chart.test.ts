import { describe, expect, it } from 'vitest';
import { middleEllipsis, topSlices } from './pie_chart';

const slice = (label: string, value: number) => ({ label, value });

describe('topSlices', () => {
  it('keeps every slice when they fit', () => {
    expect(topSlices([slice('a', 1), slice('b', 3)], 3)).toEqual([slice('b', 3), slice('a', 1)]);
  });
  it('folds the smallest into one Other slice, last', () => {
    expect(topSlices([slice('a', 5), slice('b', 4), slice('c', 2), slice('d', 1)], 3)).toEqual([
      slice('a', 5),
      slice('b', 4),
      slice('Other', 3),
    ]);
  });
  it('merges an Other slice the data already has', () => {
    expect(topSlices([slice('Other', 10), slice('a', 5), slice('b', 4), slice('c', 2)], 3)).toEqual([
      slice('a', 5),
      slice('b', 4),
      slice('Other', 12),
    ]);
  });
});

describe('middleEllipsis', () => {
  it('keeps the start and the end of a long name', () => {
    expect(middleEllipsis('short', 10)).toBe('short');
    const cut = middleEllipsis('replica_4/bert_span_labeler/bert_encoder_1/transformer/layer_3/Cast', 30);
    expect(cut).toBe('replica_4…sformer/layer_3/Cast');
    expect(cut.length).toBeLessThanOrEqual(30);
  });
});
