// "What bounds the step" in one sentence (the analysis' `bottleneck`): the first line of the
// overview and of the critical path page, with the evidence under it and, where asked, links
// to the critical path page and to the path drawn in the trace.
import { h } from '../dom';
import { notice, type NoticeKind } from './panel';
import { richText } from './rich_text';

export interface Bottleneck {
  kind: string; // a critical path kind (path_kinds.ts)
  share_pct: number; // of the critical path
  evidence: string;
  saving_ms: number; // of the recommended change
  step_ms: number;
  predicted_step_ms: number; // after the recommended change
  change: string; // the recommended change, in words
  sentence: string;
}

// Device compute bounding the step is where a step should be; input is the first thing to fix.
const KIND: Record<string, NoticeKind> = { device_compute: 'ok', input: 'warning' };

// A link under the evidence: where to read more (the critical path page, the path in the trace).
export interface HeadlineLink {
  href: string;
  text: string;
  testid: string;
}

export function bottleneckHeadline(b: Bottleneck, links: HeadlineLink[] = []): HTMLElement {
  const banner = notice(
    KIND[b.kind] ?? 'caution',
    h('strong', { class: 'bottleneck-sentence', 'data-testid': 'bottleneck' }, ...richText(b.sentence)),
    h(
      'p',
      { class: 'small bottleneck-evidence' },
      ...richText(`${b.evidence}.`),
      ...links.flatMap((l) => [' ', h('a', { href: l.href, 'data-testid': l.testid }, l.text)]),
    ),
  );
  banner.classList.add('bottleneck');
  banner.dataset.kind = b.kind;
  return banner;
}
