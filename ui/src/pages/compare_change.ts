// How the compare page says a change: colour only for changes that matter (a few µs in a
// 100 ms step are noise, not a regression), and a percentage only against a baseline it can
// be a percentage of (from almost nothing, "+196562.6 %" says less than "new").

// A change is coloured when it is at least this long, this share of the larger side, and this
// share of the baseline's step time (a part of the step that moves by 0.1 % of it is noise).
export const MIN_CHANGE_MS = 0.01;
export const MIN_CHANGE_SHARE = 0.02;
export const MIN_STEP_SHARE = 0.005;
// Below this share of the other side, a baseline counts as almost nothing.
const NEAR_ZERO_SHARE = 0.01;
const MAX_PCT_SHOWN = 1000;

export function changeClass(a: number, b: number, changeMs: number, stepMs = 0): string {
  const threshold = Math.max(MIN_CHANGE_MS, MIN_CHANGE_SHARE * Math.max(Math.abs(a), Math.abs(b)), MIN_STEP_SHARE * stepMs);
  const big = Math.abs(changeMs) >= threshold;
  if (!big) return 'change-none';
  return changeMs > 0 ? 'change-worse' : 'change-better';
}

export function changePctText(a: number, b: number, pct: number, formatPct: (v: number) => string): string {
  if (a === 0 && b === 0) return formatPct(0);
  if (a === 0 || Math.abs(a) < NEAR_ZERO_SHARE * Math.abs(b)) return 'from ≈0';
  if (Math.abs(pct) > MAX_PCT_SHOWN) return `×${Number((b / a).toPrecision(3))}`;
  if (pct > 0) return `+${formatPct(pct)}`;
  if (pct < 0) return `−${formatPct(-pct)}`;
  return formatPct(0);
}
