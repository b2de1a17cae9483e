import { describe, expect, test } from 'vitest';
import { PATH_KINDS, targetLabel } from './path_kinds';
import { STEP_CATEGORIES } from './step_categories';

describe('path kinds', () => {
  test('the kinds are the critical_path JSON keys (docs/ARCHITECTURE.md §5.9b), each a colour of its own', () => {
    expect(PATH_KINDS.map((k) => k.key)).toEqual(['input', 'host', 'kernel_launch', 'device_compute', 'collectives', 'copies', 'waiting_for_rank', 'idle']);
    expect(new Set(PATH_KINDS.map((k) => k.colour)).size).toBe(PATH_KINDS.length);
  });

  test('input is red and device compute green on the path as in the step breakdown', () => {
    const colour = (list: { key: string; colour: string }[], key: string) => list.find((k) => k.key === key)!.colour;
    expect(colour(PATH_KINDS, 'input')).toBe(colour(STEP_CATEGORIES, 'input'));
    expect(colour(PATH_KINDS, 'device_compute')).toBe(colour(STEP_CATEGORIES, 'device_compute'));
  });

  test('a what-if target reads as its kind or category, an op name as itself', () => {
    expect(targetLabel('waiting_for_rank')).toEqual({ label: 'Waiting for another rank', isName: false });
    expect(targetLabel('host_compute')).toEqual({ label: 'Host compute', isName: false });
    expect(targetLabel('aten::addmm')).toEqual({ label: 'aten::addmm', isName: true });
  });
});
