import { describe, expect, it } from 'vitest';
import { changeClass, changePctText } from './compare_change';

const pct = (v: number) => `${v.toFixed(1)} %`;

describe('compare changes', () => {
  it('colours only changes that matter', () => {
    expect(changeClass(100, 100.001, 0.001)).toBe('change-none'); // 1 µs in a 100 ms step
    expect(changeClass(100, 101, 1)).toBe('change-none'); // 1 %: under the 2 % share
    expect(changeClass(100, 110, 10)).toBe('change-worse');
    expect(changeClass(0.02, 0, -0.02)).toBe('change-better');
    expect(changeClass(0, 0.005, 0.005)).toBe('change-none'); // 5 µs from nothing
    expect(changeClass(0, 0.156, 0.156, 166)).toBe('change-none'); // a new op of 0.1 % of the step
    expect(changeClass(0, 2, 2, 166)).toBe('change-worse');
  });

  it('gives no huge percentage for a near-zero baseline', () => {
    expect(changePctText(0.0001, 0.1966, 196562.6, pct)).toBe('from ≈0');
    expect(changePctText(0, 3, 0, pct)).toBe('from ≈0');
    expect(changePctText(1, 25, 2400, pct)).toBe('×25');
    expect(changePctText(10, 12, 20, pct)).toBe('+20.0 %');
    expect(changePctText(10, 8, -20, pct)).toBe('−20.0 %');
  });
});
