// Links from a tool's row into the trace viewer, opened at that row's moment: the event of that
// name nearest the time the row gives (or the longest of that name), selected, in view, its
// track scrolled to; or a step of a rank. The trace viewer reads these options
// (pages/trace_viewer_page.ts); only this file writes them.
import { viewStateHash } from './location_state';

export interface TraceTarget {
  name?: string; // an event's whole name
  atMs?: number; // near this time, in the tools' clock (milliseconds of the profile's time)
  fromMs?: number; // keep this earlier moment in view too (where an idle gap began)
  step?: number; // open on this step
  criticalPath?: boolean; // with the critical path drawn
}

// The trace viewer's URL options for a target.
export const TRACE_OPTIONS = { name: 'find', atMs: 'at_ms', fromMs: 'from_ms', step: 'step', criticalPath: 'critical_path' } as const;

export function traceHash(run: string, host: string, target: TraceTarget): string {
  const options: Record<string, string> = {};
  if (target.name) options[TRACE_OPTIONS.name] = target.name;
  if (target.atMs !== undefined) options[TRACE_OPTIONS.atMs] = String(target.atMs);
  if (target.fromMs !== undefined) options[TRACE_OPTIONS.fromMs] = String(target.fromMs);
  if (target.step !== undefined) options[TRACE_OPTIONS.step] = String(target.step);
  if (target.criticalPath) options[TRACE_OPTIONS.criticalPath] = '1';
  return viewStateHash({ run, host, tool: 'trace_viewer', options });
}

// A table cell's link (data_table's Column.link): where it goes and what it says on hover.
export function traceLinkTo(where: { run: string; host: string }, target: TraceTarget): { href: string; title: string } {
  const what =
    target.step !== undefined ? `step ${target.step}` : target.name ? (target.atMs !== undefined ? 'this moment' : 'its longest occurrence') : 'its steps';
  return { href: traceHash(where.run, where.host, target), title: `Open the trace${where.host ? ` of ${where.host}` : ''} at ${what}` };
}

// What the trace viewer was asked to open on.
export function readTraceTarget(options: Record<string, string>): TraceTarget | null {
  const num = (key: string) => (options[key] !== undefined && options[key] !== '' && Number.isFinite(Number(options[key])) ? Number(options[key]) : undefined);
  const target: TraceTarget = {
    name: options[TRACE_OPTIONS.name] || undefined,
    atMs: num(TRACE_OPTIONS.atMs),
    fromMs: num(TRACE_OPTIONS.fromMs),
    step: num(TRACE_OPTIONS.step),
    criticalPath: options[TRACE_OPTIONS.criticalPath] === '1' || undefined,
  };
  return target.name || target.step !== undefined ? target : null;
}
