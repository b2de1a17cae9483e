import { describe, expect, it } from 'vitest';
import { niceTicks } from './grouped_bar_chart';

describe('grouped bar chart axis', () => {
  it('ticks in round steps up to at least the largest value', () => {
    expect(niceTicks(62)).toEqual([0, 20, 40, 60, 80]);
    expect(niceTicks(100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0.37)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
  });
  it('has one tick for nothing to show', () => {
    expect(niceTicks(0)).toEqual([0]);
  });
});
