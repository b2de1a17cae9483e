import { describe, expect, it } from 'vitest';
import { formatBytes, formatMs, formatPct, humanize } from './format';

describe('formatting', () => {
  it('picks a time unit that fits', () => {
    expect(formatMs(1234)).toBe('1.23 s');
    expect(formatMs(62.1)).toBe('62.1 ms');
    expect(formatMs(0.0964)).toBe('96.4 µs');
    expect(formatMs(0.0000012)).toBe('1.20 ns');
    expect(formatMs(0)).toBe('0 ms');
    expect(formatMs(undefined)).toBe('–');
  });
  it('writes percentages with one decimal', () => {
    expect(formatPct(60.832)).toBe('60.8%');
  });
  it('writes sizes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.00 MiB');
  });
  it('turns keys into labels', () => {
    expect(humanize('total_self_time_ms')).toBe('Total self time');
  });
});
