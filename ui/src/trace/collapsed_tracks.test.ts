import { describe, expect, it } from 'vitest';
import { formatCollapsed, parseCollapsed, sectionKey, trackKey } from './collapsed_tracks';

describe('collapsed tracks', () => {
  it('round-trips sections then tracks, ignoring anything else', () => {
    const keys = parseCollapsed('t12,s1,bogus,c2,t3,,s0');
    expect([...keys].sort()).toEqual(['c2', 's0', 's1', 't12', 't3']);
    expect(formatCollapsed(keys)).toBe('s0,s1,t3,t12,c2');
    expect(formatCollapsed(new Set([trackKey(7), sectionKey(2)]))).toBe('s2,t7');
    expect(parseCollapsed(undefined).size).toBe(0);
  });
});
