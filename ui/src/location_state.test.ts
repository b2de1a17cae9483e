import { describe, expect, it } from 'vitest';
import { readViewState, viewStateHash } from './location_state';

describe('view state in the URL hash', () => {
  it('reads the selection and keeps other keys as tool options', () => {
    expect(readViewState('#run=r1&host=h%201&tool=framework_op_stats&include_idle=1')).toEqual({
      run: 'r1',
      host: 'h 1',
      tool: 'framework_op_stats',
      options: { include_idle: '1' },
    });
  });
  it('reads an empty hash as nothing chosen', () => {
    expect(readViewState('')).toEqual({ run: '', host: '', tool: '', options: {} });
  });
  it('writes what it reads', () => {
    const hash = '#run=2024_01_02_03_04_05&tool=overview_page';
    expect(viewStateHash(readViewState(hash))).toBe(hash);
  });
});
