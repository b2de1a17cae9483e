// The names beside the trace viewer's canvas: one per section, track and counter, placed at the
// layout's y. Those that fold are buttons (click, Enter or space); a track has a pin that moves
// it to the pinned group at the top (and back).
import { clear, h } from '../dom';
import type { Layout } from './trace_layout';

export interface LabelActions {
  toggle(key: string): void;
  pin(key: string): void;
}

export function renderTrackLabels(container: HTMLElement, layout: Layout, actions: LabelActions): void {
  clear(container);
  container.style.height = `${layout.height}px`;
  for (const l of layout.labels) {
    const cls =
      l.kind === 'section'
        ? 'trace-section-label'
        : l.kind === 'counter'
          ? 'trace-track-label trace-counter-label'
          : l.kind === 'group'
            ? 'trace-track-label trace-counter-group'
            : 'trace-track-label';
    const text = h('span', { class: 'trace-label-text' }, l.text);
    const el = h(
      'div',
      { class: cls, style: `top:${l.y}px;height:${l.height}px`, title: l.title ?? l.text, 'data-key': l.key },
      text,
    );
    if (l.foldable) {
      el.setAttribute('role', 'button');
      el.setAttribute('aria-expanded', String(!l.collapsed));
      el.tabIndex = 0;
      el.addEventListener('click', () => actions.toggle(l.key));
      el.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        actions.toggle(l.key);
      });
    }
    if (l.kind === 'track') {
      const pin = h(
        'button',
        {
          type: 'button',
          class: 'trace-pin',
          title: l.pinned ? 'Unpin: back to its section' : 'Pin to the top',
          'aria-label': l.pinned ? `Unpin ${l.text}` : `Pin ${l.text}`,
          'aria-pressed': String(Boolean(l.pinned)),
        },
      ); // its glyph comes from the style sheet, so the label's text stays the track's name
      pin.addEventListener('click', (e) => {
        e.stopPropagation();
        actions.pin(l.key);
      });
      el.append(pin);
    }
    container.append(el);
  }
}
