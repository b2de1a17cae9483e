import { describe, expect, it } from 'vitest';
import { initialView } from './initial_view';

describe('initial view', () => {
  it('opens on the first three steps, with a little margin', () => {
    const steps: [number, number, number][] = [0, 1, 2, 3, 4].map((i) => [100 + i * 110, 100, i]);
    const view = initialView(steps, 1000); // steps 0..2: 100 to 420
    expect(view.start).toBeCloseTo(93.6);
    expect(view.end).toBeCloseTo(426.4);
  });

  it('leaves out a step far after the previous one', () => {
    // TensorFlow's BERT file: step 0 on one GPU at 1790 ms, step 1 on another at 2450 ms.
    const view = initialView([[2450, 21, 1], [1790, 20, 0]], 2650);
    expect(view.start).toBeCloseTo(1789.6);
    expect(view.end).toBeCloseTo(1810.4);
  });

  it('opens on the devices\' work when there are no steps, else on the whole trace', () => {
    // A capture of 7.97 s whose GPU works from 7.2 to 7.7 s.
    const view = initialView([], 7970, [7200, 7700]);
    expect(view.start).toBeCloseTo(7190);
    expect(view.end).toBeCloseTo(7710);
    expect(initialView([], 500)).toEqual({ start: 0, end: 500 });
    expect(initialView([[10, 5, 0]], 500, [0, 400]).end).toBeCloseTo(15.1); // steps first
  });
});
