// The view the trace viewer opens on: where the work is, not the whole capture (on TensorFlow's
// file the whole span shows two slivers). The first few steps, as long as they follow one
// another: a step that starts long after the previous one ended (steps of other devices, a
// pause) is left for the user to pan to. No steps: where the devices worked (a profile of a
// few kernels in seconds of host time would show them as a sliver), else the whole trace.
import type { TimeRange } from './time_scale';
import type { TraceStep } from './trace_api';

export const STEPS_SHOWN = 3;

export function initialView(steps: TraceStep[], total: number, deviceSpan?: [number, number]): TimeRange {
  if (!steps.length && deviceSpan && deviceSpan[1] > deviceSpan[0]) {
    const margin = (deviceSpan[1] - deviceSpan[0]) * 0.02;
    return { start: Math.max(0, deviceSpan[0] - margin), end: Math.min(total, deviceSpan[1] + margin) };
  }
  if (!steps.length) return { start: 0, end: total };
  const sorted = [...steps].sort((a, b) => a[0] - b[0]);
  const shown = [sorted[0]];
  for (const step of sorted.slice(1, STEPS_SHOWN)) {
    const prev = shown[shown.length - 1];
    const gap = step[0] - (prev[0] + prev[1]);
    if (gap > prev[1]) break; // far after the previous step
    shown.push(step);
  }
  const start = shown[0][0];
  const end = Math.max(...shown.map((s) => s[0] + s[1]));
  const margin = (end - start) * 0.02;
  return { start: Math.max(0, start - margin), end: Math.min(total, end + margin) };
}

// One step, by its number, with the same margin; null when the trace has no such step.
export function stepView(steps: TraceStep[], stepNum: number): TimeRange | null {
  const step = steps.find((s) => s[2] === stepNum);
  if (!step) return null;
  const margin = step[1] * 0.02;
  return { start: step[0] - margin, end: step[0] + step[1] + margin };
}
