import { describe, expect, it } from 'vitest';
import { bytesAxis, msAxis, tickText } from './axis_units';

describe('axis units', () => {
  it('picks one unit and round ticks in it', () => {
    const gib = bytesAxis(5.78 * 2 ** 30);
    expect(gib.unit).toBe('GiB');
    expect(gib.incrs).toContain(2 ** 30);
    expect(gib.incrs).toContain(0.5 * 2 ** 30);
    expect(tickText(1.5 * 2 ** 30, gib)).toBe('1.5');
    expect(bytesAxis(600 * 1024).unit).toBe('KiB');
    expect(msAxis(2650).unit).toBe('s');
    expect(tickText(500, msAxis(2650))).toBe('0.5');
    expect(msAxis(250).unit).toBe('ms');
  });
});
