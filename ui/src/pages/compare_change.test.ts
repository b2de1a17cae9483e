import { describe, expect, it } from 'vitest';
import { changeClass, changePctText } from './compare_change';

const pct = (v: number) => `${v.toFixed(1)} %`;

describe('compare changes', () => {
  it('colours a change by the significance the analysis gave it', () => {
    expect(changeClass({ change_pct: 0.001, significance: 'none' })).toBe('change-none');
    expect(changeClass({ change_pct: 10, significance: 'worse' })).toBe('change-worse');
    expect(changeClass({ change_pct: -100, significance: 'better' })).toBe('change-better');
  });

  it('gives no percentage where the analysis has none', () => {
    expect(changePctText({ change_pct: null, significance: 'worse' }, pct)).toBe('from ≈0');
    expect(changePctText({ change_pct: 2400, change_ratio: 25, significance: 'worse' }, pct)).toBe('×25');
    expect(changePctText({ change_pct: 20, significance: 'worse' }, pct)).toBe('+20.0 %');
    expect(changePctText({ change_pct: -20, significance: 'better' }, pct)).toBe('−20.0 %');
    expect(changePctText({ change_pct: 0, significance: 'none' }, pct)).toBe('0.0 %');
  });
});
