// The head of every page: the tool's title (from the server's tool list, never written here),
// a line saying what it shows, and its actions (pickers, the CSV download).
import { h } from '../dom';
import type { ToolOptions } from '../api';

type Content = Node | string | null | undefined | false;

export function pageHeader(title: string, subtitle?: string, ...actions: Content[]): HTMLElement {
  return h(
    'header',
    { class: 'page-header' },
    h('div', {}, h('h1', {}, title), subtitle ? h('p', { class: 'muted' }, subtitle) : null),
    h('div', { class: 'page-actions' }, ...actions),
  );
}

// What a tool page's header needs of its context.
interface HeaderContext {
  title: string;
  run: string;
  host: string;
}

// A tool page's header; the line under the title says the run and host unless told otherwise.
export function toolHeader(ctx: HeaderContext, subtitle?: string | null, ...actions: Content[]): HTMLElement {
  return pageHeader(ctx.title, subtitle ?? `Run ${ctx.run} · ${ctx.host || 'all hosts'}`, ...actions);
}

// The button that downloads a tool's table as CSV.
export function csvButton(ctx: { csvUrl(options?: ToolOptions): string }, options?: ToolOptions, label = 'Export as CSV'): HTMLElement {
  return h('a', { class: 'button', href: ctx.csvUrl(options), download: '', 'data-testid': 'export-csv' }, label);
}
