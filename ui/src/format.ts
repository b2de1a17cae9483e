// How numbers read in the UI: times with a unit that fits, percentages with one decimal,
// counts with thousands separators.

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const abs = Math.abs(ms);
  if (abs === 0) return '0 ms';
  if (abs >= 1000) return `${trim(ms / 1000)} s`;
  if (abs >= 1) return `${trim(ms)} ms`;
  if (abs >= 0.001) return `${trim(ms * 1000)} µs`;
  return `${trim(ms * 1e6)} ns`;
}

export function formatUs(us: number | null | undefined): string {
  return us === null || us === undefined ? '–' : formatMs(us / 1000);
}

export function formatPct(pct: number | null | undefined): string {
  if (pct === null || pct === undefined || !Number.isFinite(pct)) return '–';
  return `${pct.toFixed(1)}%`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${trim(v)} ${units[u]}`;
}

// Three significant digits, at most three decimals: 123 ms, 12.3 ms, 1.23 ms.
function trim(v: number): string {
  const abs = Math.abs(v);
  const decimals = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return v.toFixed(decimals);
}

// "framework_op_stats" -> "Framework op stats", for keys without a title of their own.
export function humanize(key: string): string {
  const words = key.replace(/_(ms|us|ps|pct)$/, '').replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
