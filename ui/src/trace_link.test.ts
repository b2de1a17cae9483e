// A row's link into the trace says what the trace viewer reads back.
import { describe, expect, test } from 'vitest';
import { readViewState } from './location_state';
import { readTraceTarget, traceHash } from './trace_link';

describe('trace links', () => {
  test('an event near a time, on a host', () => {
    const hash = traceHash('run 1', 'rank0', { name: 'void k<int>(int*)', atMs: 221.9, fromMs: 221.3 });
    const state = readViewState(hash);
    expect(state).toMatchObject({ run: 'run 1', host: 'rank0', tool: 'trace_viewer' });
    expect(readTraceTarget(state.options)).toEqual({ name: 'void k<int>(int*)', atMs: 221.9, fromMs: 221.3, step: undefined });
  });

  test('a step; nothing asked reads as no target', () => {
    expect(readTraceTarget(readViewState(traceHash('r', '', { step: 7 })).options)).toMatchObject({ step: 7 });
    expect(readTraceTarget({})).toBeNull();
    expect(readTraceTarget({ at_ms: 'soon' })).toBeNull();
  });
});

describe('the critical path in the trace', () => {
  test('a step with its path drawn reads back as asked', () => {
    const options = readViewState(traceHash('r', 'h', { step: 3, criticalPath: true })).options;
    expect(options.critical_path).toBe('1');
    expect(readTraceTarget(options)).toMatchObject({ step: 3, criticalPath: true });
    expect(readTraceTarget(readViewState(traceHash('r', 'h', { step: 3 })).options)?.criticalPath).toBeUndefined();
  });
});
