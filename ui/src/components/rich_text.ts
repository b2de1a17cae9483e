// Recommendation sentences from the analysis quote names in `backticks`: show those as code.
import { h } from '../dom';

export function richText(text: string): (Node | string)[] {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? h('code', {}, part) : part));
}

export function recommendationList(items: string[]): HTMLElement {
  return items.length
    ? h('ul', { class: 'recommendations' }, ...items.map((r) => h('li', {}, ...richText(r))))
    : h('p', { class: 'muted' }, 'Nothing stands out.');
}
