// The names beside the trace viewer's canvas: one per section and per track, placed at the
// layout's y; those that fold are buttons (click, Enter or space).
import { clear, h } from '../dom';
import type { Layout } from './trace_layout';

export function renderTrackLabels(container: HTMLElement, layout: Layout, toggle: (key: string) => void): void {
  clear(container);
  container.style.height = `${layout.height}px`;
  for (const l of layout.labels) {
    // A track of one row has nothing to hide: its label is plain text.
    const foldable = l.kind === 'section' || l.rows > 1;
    const el = h(
      'div',
      {
        class: l.kind === 'section' ? 'trace-section-label' : 'trace-track-label',
        style: `top:${l.y}px;height:${l.height}px`,
        title: l.text,
        'data-key': l.key,
      },
      l.text,
    );
    if (foldable) {
      el.setAttribute('role', 'button');
      el.setAttribute('aria-expanded', String(!l.collapsed));
      el.tabIndex = 0;
      el.addEventListener('click', () => toggle(l.key));
      el.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        toggle(l.key);
      });
    }
    container.append(el);
  }
}
