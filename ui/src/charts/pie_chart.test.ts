import { describe, expect, it } from 'vitest';
import { topSlices } from './pie_chart';

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
