// How the compare page says a change. Whether a change matters and whether it has a percentage
// are decided by the analysis (`significance`, `change_pct`, `change_ratio` in /api/diff), the
// same rule `mlprof diff` prints with; the page only turns those fields into colour and text.

export type Significance = 'none' | 'worse' | 'better';

export interface ChangeFields {
  change_pct: number | null; // null: the baseline is ≈0, so there is no percentage
  change_ratio?: number; // there when the percentage is too large to read well
  significance: Significance;
}

export function changeClass(c: ChangeFields): string {
  return c.significance === 'none' ? 'change-none' : `change-${c.significance}`;
}

export function changePctText(c: ChangeFields, formatPct: (v: number) => string): string {
  if (c.change_pct === null) return 'from ≈0';
  if (c.change_ratio !== undefined) return `×${Number(c.change_ratio.toPrecision(3))}`;
  if (c.change_pct > 0) return `+${formatPct(c.change_pct)}`;
  if (c.change_pct < 0) return `−${formatPct(-c.change_pct)}`;
  return formatPct(0);
}
