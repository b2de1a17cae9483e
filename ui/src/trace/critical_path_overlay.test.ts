// What the viewer says of the path it leaves out, and which path a link's step opens on.
import { describe, expect, test } from 'vitest';
import { leftOutNote, pathOfStep, type ViewerPath } from './critical_path_overlay';

const path = (stepNum: number, startPs: number, endPs: number, leftOut: number, leftOutPs: number): ViewerPath => ({
  host: 'h',
  stepNum,
  startPs,
  endPs,
  segments: [],
  leftOut,
  leftOutPs,
});

describe('the critical path overlay', () => {
  const paths = [path(1, 0, 100, 10, 5), path(2, 100, 200, 30, 15), path(3, 200, 300, 0, 0)];

  test('counts the segments not drawn in the steps in view, and their share of the path', () => {
    // Steps 1 and 2 in view: 40 segments, 20 of 200 ps.
    expect(leftOutNote(paths, { start: 50, end: 150 })).toBe(
      "Critical path: the longest segments of each step drawn; 40 shorter ones (10 % of the path's time) are not.",
    );
    expect(leftOutNote(paths, { start: 250, end: 300 })).toBe('');
    expect(leftOutNote([path(1, 0, 1000, 3, 1)], { start: 0, end: 10 })).toMatch(/\(< 1 % of/);
  });

  test("a link's step opens on that step's path", () => {
    expect(pathOfStep(paths, 2)?.startPs).toBe(100);
    expect(pathOfStep(paths, 9)).toBeUndefined();
  });
});
