// Sentences from the analysis (recommendations, suggestions): names quoted in `backticks` show
// as code, tool ids ("memory_profile") become links to those tools' pages for the run in view,
// and category keys ("reading_data_from_files_in_advance") read as their labels. Long kernel
// names (C++ templates of hundreds of characters) read shortened, whole on hover.
import { h } from '../dom';
import { formatMs } from '../format';
import { shortenName } from '../name_shortening';
import { readViewState, viewStateHash } from '../location_state';
import { CATEGORY_LABELS } from '../step_categories';

// The tools the server lists (id -> title), set by the app when it draws the sidebar.
const toolTitles = new Map<string, string>();

export function setKnownTools(tools: { name: string; title: string }[]): void {
  toolTitles.clear();
  for (const t of tools) toolTitles.set(t.name, t.title);
}

function toolLink(id: string): HTMLElement {
  const state = readViewState();
  return h('a', { href: viewStateHash({ run: state.run, host: state.host, tool: id, options: {} }), class: 'tool-link', 'data-tool-link': id }, toolTitles.get(id) ?? id);
}

// Plain text with the snake_case words it knows replaced.
function words(text: string): (Node | string)[] {
  const out: (Node | string)[] = [];
  let at = 0;
  for (const m of text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)) {
    const word = m[0];
    const replacement = toolTitles.has(word) ? toolLink(word) : CATEGORY_LABELS[word]?.toLowerCase();
    if (replacement === undefined) continue;
    out.push(text.slice(at, m.index), replacement);
    at = m.index + word.length;
  }
  out.push(text.slice(at));
  return out.filter((p) => p !== '');
}

// Names longer than this are shortened in sentences.
const kShownNameLength = 60;

const shortName = (name: string, tag: 'span' | 'code') =>
  name.length > kShownNameLength ? h(tag, { class: 'short-name', title: name }, shortenName(name, kShownNameLength)) : tag === 'code' ? h('code', {}, name) : name;

// Where demangled C++ functions start: a qualified name (`void at::native::kernel`) right
// before its template arguments or parameters.
const CPP_START = /(?:\bvoid )?\b[A-Za-z_]\w*(?:::[A-Za-z_~]\w*)+(?=[<(])/g;

// The end of the bracketed groups (`<...>(...)`) that start at `at`.
function endOfBrackets(text: string, at: number): number {
  let end = at;
  while (text[end] === '<' || text[end] === '(') {
    let depth = 0;
    let i = end;
    for (; i < text.length; ++i) {
      if (text[i] === '<' || text[i] === '(') ++depth;
      else if ((text[i] === '>' || text[i] === ')') && --depth === 0) break;
    }
    if (depth !== 0) return end; // unbalanced: not a name
    end = i + 1;
  }
  return end;
}

// Plain text with its long C++ names shortened, and the snake_case words it knows replaced.
function prose(text: string): (Node | string)[] {
  const out: (Node | string)[] = [];
  let at = 0;
  for (const m of text.matchAll(CPP_START)) {
    if (m.index < at) continue;
    const end = endOfBrackets(text, m.index + m[0].length);
    const name = text.slice(m.index, end);
    if (name.length <= kShownNameLength) continue;
    out.push(...words(text.slice(at, m.index)), shortName(name, 'span'));
    at = end;
  }
  out.push(...words(text.slice(at)));
  return out.filter((p) => p !== '');
}

export function richText(text: string): (Node | string)[] {
  return text.split(/`([^`]+)`/).flatMap((part, i) => {
    if (i % 2 === 0) return prose(part);
    return toolTitles.has(part) ? [toolLink(part)] : [shortName(part, 'code')];
  });
}

// A recommendation: its sentence, and where the analysis predicts it, the step time its change
// would give (docs/ARCHITECTURE.md §5.9b: each recommendation says what it would buy).
export type Recommendation =
  | string
  | {
      text: string;
      predicted_step_ms?: number | null;
      step_ms?: number | null;
      gains_nothing?: boolean | null;
      // false: nothing the trace shows links the changed work to the steps
      reaches_steps?: boolean | null;
      what_if?: { target: string; scale: number } | null;
    };

// From the measured step to the predicted one, as the text report says it; a change the
// critical path does not feel (the JSON's gains_nothing) says so instead of an unmoved figure,
// and why where the trace links the changed work (`unlinked`, by name) to no step.
export function predictionText(measured: number | null, predicted: number, gainsNothing = false, unlinked = ''): string {
  if (gainsNothing && measured !== null && unlinked)
    return `Predicted step: ${formatMs(measured)} either way: nothing the trace shows links ${unlinked} to the steps (a loader thread not marked with _p/_c, an untraced thread), so the replay cannot tell.`;
  if (gainsNothing && measured !== null)
    return `Predicted step: ${formatMs(measured)} either way: what it changes is not on the critical path.`;
  return `Predicted step: ${measured !== null ? `${formatMs(measured)} → ` : ''}${formatMs(predicted)}.`;
}

export function recommendationList(items: Recommendation[]): HTMLElement {
  const item = (r: Recommendation) => {
    const { text, predicted, measured, gainsNothing, unlinked } =
      typeof r === 'string'
        ? { text: r, predicted: null, measured: null, gainsNothing: false, unlinked: '' }
        : {
            text: r.text,
            predicted: r.predicted_step_ms ?? null,
            measured: r.step_ms ?? null,
            gainsNothing: r.gains_nothing ?? false,
            unlinked: r.reaches_steps === false ? (r.what_if?.target ?? 'it') : '',
          };

    return h(
      'li',
      {},
      ...richText(text),
      predicted !== null ? h('span', { class: 'prediction', 'data-testid': 'recommendation-prediction' }, ` ${predictionText(measured, predicted, gainsNothing, unlinked)}`) : null,
    );
  };
  return items.length ? h('ul', { class: 'recommendations' }, ...items.map(item)) : h('p', { class: 'muted' }, 'Nothing stands out.');
}
