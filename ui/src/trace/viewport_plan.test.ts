import { describe, expect, it } from 'vitest';
import { covers, coversAhead, rangeToFetch } from './viewport_plan';

describe('viewport plan', () => {
  it('asks for two spans of margin on each side at the same density', () => {
    expect(rangeToFetch({ start: 3000, end: 4000 }, 500, 10_000)).toEqual({ start: 1000, end: 6000, widthPx: 2500 });
    expect(rangeToFetch({ start: 1000, end: 2000 }, 500, 10_000)).toEqual({ start: 0, end: 4000, widthPx: 2000 });
    // Clamped to the trace: less margin, fewer pixels.
    expect(rangeToFetch({ start: 0, end: 1000 }, 500, 1500)).toEqual({ start: 0, end: 1500, widthPx: 750 });
  });

  it('a reply covers views inside it at about its density', () => {
    const fetched = rangeToFetch({ start: 1000, end: 2000 }, 500, 10_000);
    expect(covers(fetched, { start: 1000, end: 2000 }, 500)).toBe(true);
    expect(covers(fetched, { start: 1800, end: 2800 }, 500)).toBe(true); // panned within the margin
    expect(covers(fetched, { start: 3500, end: 4500 }, 500)).toBe(false); // panned past it
    expect(covers(fetched, { start: 1200, end: 1700 }, 500)).toBe(false); // zoomed in 2×: too coarse
    expect(covers(fetched, { start: 1100, end: 1900 }, 500)).toBe(true); // zoomed in 1.25×
    expect(covers(null, { start: 0, end: 1 }, 500)).toBe(false);
  });

  it('asks for the next reply when the view comes within half a span of the edge', () => {
    const fetched = rangeToFetch({ start: 1000, end: 2000 }, 500, 10_000); // 0..4000
    expect(coversAhead(fetched, { start: 1000, end: 2000 }, 500, 10_000)).toBe(true);
    expect(coversAhead(fetched, { start: 2500, end: 3500 }, 500, 10_000)).toBe(true); // 500 ahead: just enough
    expect(coversAhead(fetched, { start: 2600, end: 3600 }, 500, 10_000)).toBe(false); // 400 ahead
    expect(covers(fetched, { start: 2600, end: 3600 }, 500)).toBe(true); // though it still draws the view
    // At the trace's ends there is nothing more to ask for.
    expect(coversAhead(fetched, { start: 0, end: 1000 }, 500, 10_000)).toBe(true);
    expect(coversAhead(rangeToFetch({ start: 9000, end: 10_000 }, 500, 10_000), { start: 9000, end: 10_000 }, 500, 10_000)).toBe(true);
    expect(coversAhead(null, { start: 0, end: 1 }, 500, 10)).toBe(false);
  });
});
