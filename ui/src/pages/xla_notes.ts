// What the XLA op tools (op_profile, hlo_stats, roofline_model) share on their pages: the
// lines that say which stats the file lacked, and a device's peaks in words.
import { h } from '../dom';
import { notice } from '../components/panel';

export function notesNotice(notes: string[]): HTMLElement | null {
  if (notes.length === 0) return null;
  return notice('caution', h('ul', { 'data-testid': 'missing-stats' }, ...notes.map((n) => h('li', {}, n))));
}

export function peaksText(tflops: number, hbmGbps: number): string {
  if (tflops <= 0 && hbmGbps <= 0) return 'not in the file';
  return `${tflops.toFixed(0)} TFLOP/s, HBM ${hbmGbps.toFixed(0)} GB/s`;
}

// A utilisation (0..1) as a percentage, '–' when unknown (0).
export function utilText(u: number): string {
  return u > 0 ? `${(100 * u).toFixed(1)}%` : '–';
}
