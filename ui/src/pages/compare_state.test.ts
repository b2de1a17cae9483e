import { describe, expect, it } from 'vitest';
import { compareHash, isCompareHash, readCompareState } from './compare_page';

describe('compare page state in the URL hash', () => {
  it('round-trips both runs and hosts', () => {
    const state = { run_a: 'run 1', host_a: 'trainer', run_b: 'run/2', host_b: '' };
    const hash = compareHash(state);
    expect(isCompareHash(hash)).toBe(true);
    expect(readCompareState(hash)).toEqual(state);
  });
  it('is not a tool view', () => {
    expect(isCompareHash('#run=a&tool=overview_page')).toBe(false);
  });
});
