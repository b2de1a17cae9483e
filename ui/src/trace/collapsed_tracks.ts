// Which sections and tracks of the trace viewer are collapsed, kept in the URL's hash
// (`collapsed=s0,t12`: section 0, the track of line 12) so that a reload or a shared link
// shows the same tracks. Sections are numbered in the viewer's order; tracks by their line.
import { readViewState, viewStateHash } from '../location_state';

export const sectionKey = (index: number): string => `s${index}`;
export const trackKey = (line: number): string => `t${line}`;
// The groups that are no section of the reply: counter tracks and pinned tracks.
// Counter tracks (GPU queues, memory in use) start folded: listing their key unfolds them,
// the loose ones' (COUNTERS_KEY) or a section's (counterGroupKey).
export const COUNTERS_KEY = 'counters';
export const counterGroupKey = (sectionIndex: number): string => `c${sectionIndex}`;
export const PINNED_KEY = 'pinned';
// The devices without events, listed once at the end: folded unless this key is listed.
export const EMPTY_DEVICES_KEY = 'empty';

// Also read for the pinned tracks (`pinned=t12,t40`).
export function parseCollapsed(text: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const key of (text ?? '').split(','))
    if (/^[stc]\d+$/.test(key) || key === COUNTERS_KEY || key === PINNED_KEY || key === EMPTY_DEVICES_KEY) out.add(key);
  return out;
}

export function formatCollapsed(keys: Set<string>): string {
  const order = (k: string) => (k[0] === 's' ? 0 : k[0] === 't' ? 1e9 : k[0] === 'c' ? 2e9 : -1) + (Number(k.slice(1)) || 0);
  return [...keys].sort((a, b) => order(a) - order(b)).join(',');
}

// Writes one of the page's options into the hash without rendering the page again.
export function rememberOption(name: string, value: string): void {
  const state = readViewState();
  if (value) state.options[name] = value;
  else delete state.options[name];
  const hash = viewStateHash(state);
  if (hash !== window.location.hash) history.replaceState(null, '', hash);
}
