// The input-bound verdict as a banner: red when the input pipeline is the problem.
import { h } from '../dom';
import { notice, type NoticeKind } from './panel';

const KIND: Record<string, NoticeKind> = {
  HIGHLY: 'warning',
  MODERATELY: 'caution',
  POTENTIALLY: 'caution',
  NOT: 'ok',
};

export function verdictBanner(verdict: string, explanation: string): HTMLElement {
  const banner = notice(KIND[verdict] ?? 'info', h('strong', {}, explanation));
  banner.classList.add('verdict');
  banner.dataset.verdict = verdict;
  return banner;
}
