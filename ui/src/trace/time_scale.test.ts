import { describe, expect, it } from 'vitest';
import { axisLabels, clampRange, formatPs, formatRange, panRange, timeTicks, zoomRange } from './time_scale';

describe('time scale', () => {
  it('zooms around the anchor and stays inside the trace', () => {
    const r = zoomRange({ start: 0, end: 1000e6 }, 0.5, 0.5, 1000e6);
    expect(r).toEqual({ start: 250e6, end: 750e6 });
    expect(zoomRange(r, 4, 0.5, 1000e6)).toEqual({ start: 0, end: 1000e6 });
  });

  it('pans without leaving the trace', () => {
    expect(panRange({ start: 0, end: 100 * 1e3 }, -5e3, 1e6)).toEqual({ start: 0, end: 100e3 });
    expect(panRange({ start: 0, end: 100e3 }, 2e6, 1e6)).toEqual({ start: 900e3, end: 1e6 });
    expect(clampRange({ start: 5, end: 5 }, 1e6).end - clampRange({ start: 5, end: 5 }, 1e6).start).toBe(1000);
  });

  it('ticks at round times', () => {
    expect(timeTicks({ start: 0, end: 100e9 }, 5)).toEqual([0, 20e9, 40e9, 60e9, 80e9, 100e9]);
    expect(formatPs(1.5e9)).toBe('1.5 ms');
    expect(formatPs(2500)).toBe('2.5 ns');
  });

  it('labels the axis in one unit, from a readable origin', () => {
    expect(axisLabels({ start: 0, end: 1000e9 }, 5).map((l) => l.text)).toEqual(['0 ms', '200 ms', '400 ms', '600 ms', '800 ms', '1000 ms']);
    expect(axisLabels({ start: 0, end: 3e12 }, 3).map((l) => l.text)).toEqual(['0 s', '1 s', '2 s', '3 s']);
    expect(axisLabels({ start: 1.5e6, end: 2.5e6 }, 2).map((l) => l.text)).toEqual(['1500 ns', '2000 ns', '2500 ns']);
    expect(formatRange({ start: 0, end: 250e9 })).toBe('0 – 250 ms');
  });

  it('reads deep zoom in a long trace: the first tick in full, the others as offsets', () => {
    // 27.216109 ms into the trace, 1 ns across: ticks every 200 ps.
    const r = { start: 27216109000, end: 27216110000 };
    const labels = axisLabels(r, 5).map((l) => l.text);
    expect(labels[0]).toBe('27.2161090 ms');
    expect(labels.slice(1)).toEqual(['+200 ps', '+400 ps', '+600 ps', '+800 ps', '+1000 ps']);
    expect(formatRange(r)).toBe('27.2161090 – 27.2161100 ms');
    expect(formatRange({ start: 2.5e12, end: 2.5e12 + 5e6 })).toBe('2.5000000 – 2.5000050 s');
  });
});
