// Horizontal bars with a label and a value: a breakdown that reads at a glance.
import { h } from '../dom';

export interface BarItem {
  label: string;
  fraction: number; // 0..1 of the bar's full width
  colour: string;
  value: string; // the text at the right
  muted?: boolean;
}

export function barList(items: BarItem[], label: string): HTMLElement {
  return h(
    'div',
    { class: 'bar-list', role: 'list', 'aria-label': label },
    ...items.map((item) =>
      h(
        'div',
        { class: `bar-row${item.muted ? ' muted' : ''}`, role: 'listitem' },
        h('span', { class: 'bar-label' }, item.label),
        h(
          'span',
          { class: 'bar-track' },
          h('span', {
            class: 'bar-fill',
            style: `width:${Math.max(0, Math.min(1, item.fraction)) * 100}%;background:${item.colour}`,
          }),
        ),
        h('span', { class: 'bar-value' }, item.value),
      ),
    ),
  );
}
