// The page's building blocks: titled panels, banners, label/value lists.
import { h } from '../dom';

type Content = Node | string | null | undefined | false;

export function panel(title: string, ...children: (Content | Content[])[]): HTMLElement {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}

export type NoticeKind = 'warning' | 'caution' | 'ok' | 'info' | 'error';

export function notice(kind: NoticeKind, ...children: (Content | Content[])[]): HTMLElement {
  return h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children);
}

export function keyValueList(rows: [string, Content][]): HTMLElement {
  return h('dl', { class: 'kv' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

// The window a figure covers (a step on average, the device activity, the whole profile...):
// a small caption under the figure's heading, from the JSON's `window`. Nothing when it has none.
export function windowCaption(window: string | null | undefined): HTMLElement | null {
  return window ? h('p', { class: 'figure-window', 'data-testid': 'figure-window' }, `Window: ${window}`) : null;
}
