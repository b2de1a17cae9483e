// Long names in a given width, keeping what tells them apart: the rule of the command line's
// text tables (src/cli/name_shortening.cc), so a kernel reads the same in the terminal and in
// the browser. A scope path (`replica_3/.../op:Type`) keeps its first and last components, a
// demangled C++ function its qualified name without template arguments and parameters; names
// of one column that would read alike show the parts in which they differ.

const ELLIPSIS = '…';
const ANONYMOUS_NAMESPACE = '(anonymous namespace)';
// A function's name is not cut shorter than this to show its template arguments.
const MIN_FUNCTION_NAME = 12;
const MOST_DETAIL = 3;

// Width in characters (code points), as a monospace terminal counts them.
export const displayWidth = (s: string): number => [...s].length;

const head = (s: string, n: number) => [...s].slice(0, n).join('');
const tail = (s: string, n: number) => (n <= 0 ? '' : [...s].slice(-n).join(''));

// The head and the tail of `s`, with an ellipsis between them.
function cutMiddle(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  if (max <= 1) return ELLIPSIS;
  const t = Math.floor((max - 1) / 2);
  return head(s, max - 1 - t) + ELLIPSIS + tail(s, t);
}

// The components marked in `keep`, each run of the others shown as one ellipsis.
function joinKept(parts: string[], keep: boolean[], sep: string): string {
  let out = '';
  for (let i = 0; i < parts.length; ++i) {
    if (!keep[i] && i > 0 && !keep[i - 1]) continue;
    if (i > 0) out += sep;
    out += keep[i] ? parts[i] : ELLIPSIS;
  }
  return out;
}

// A path in `max` characters: the components in `keep` always, then as many of the last ones
// as fit (the end of a scope names the op), the rest elided.
function fitComponents(parts: string[], keepIn: boolean[], sep: string, max: number): string {
  const keep = [...keepIn];
  let out = joinKept(parts, keep, sep);
  for (let i = parts.length - 1; i >= 0 && displayWidth(out) <= max; --i) {
    if (keep[i]) continue;
    keep[i] = true;
    const longer = joinKept(parts, keep, sep);
    if (displayWidth(longer) > max) break;
    out = longer;
  }
  return displayWidth(out) <= max ? out : cutMiddle(out, max);
}

const isScopePath = (name: string) => name.includes('/') && !name.includes(' ');

// A demangled C++ function: a qualified name with parameters or template arguments at its end.
const isCppFunction = (name: string) => name.length >= 3 && name.includes('::') && (name.endsWith(')') || name.endsWith('>'));

// A C++ function at one level of detail: its return type dropped, template arguments kept to
// `templateDepth` levels (deeper ones read "…"), its parameters kept or not.
function cppView(name: string, templateDepth: number, keepParams: boolean): string {
  let start = 0;
  for (let i = 0; i < name.length; ++i) {
    if (name.startsWith(ANONYMOUS_NAMESPACE, i)) i += ANONYMOUS_NAMESPACE.length - 1;
    else if (name[i] === '<' || name[i] === '(') break;
    else if (name[i] === ' ') start = i + 1;
  }
  let out = '';
  let templates = 0;
  let parens = 0;
  for (let i = start; i < name.length; ++i) {
    const c = name[i];
    if (name.startsWith(ANONYMOUS_NAMESPACE, i)) {
      if (templates <= templateDepth && (parens === 0 || keepParams)) out += ANONYMOUS_NAMESPACE;
      i += ANONYMOUS_NAMESPACE.length - 1;
      continue;
    }
    const shown = templates <= templateDepth && (parens === 0 || keepParams);
    if (c === '(') {
      if (shown && keepParams) out += c;
      ++parens;
    } else if (c === ')') {
      parens = Math.max(parens - 1, 0);
      if (shown && keepParams) out += c;
    } else if (c === '<') {
      ++templates;
      if (shown && templates <= templateDepth) out += c;
      else if (shown && templateDepth > 0) out += `<${ELLIPSIS}>`;
    } else if (c === '>' && templates > 0) {
      if (shown && templates <= templateDepth) out += c;
      --templates;
    } else if (shown) {
      out += c;
    }
  }
  return out;
}

// The qualified name of a C++ function in `max` characters: the namespaces go first.
function fitCppName(name: string, max: number): string {
  const parts = cppView(name, 0, false).split('::');
  const keep = parts.map((_, i) => i === parts.length - 1);
  // The function's own name uncut rather than its namespaces.
  if (displayWidth(joinKept(parts, keep, '::')) > max) return cutMiddle(parts[parts.length - 1], max);
  return fitComponents(parts, keep, '::', max);
}

// `ns::Functor<ns::T>` as `Functor<T>`: inside template arguments the namespaces say little.
const withoutNamespaces = (text: string) => text.replace(/[A-Za-z0-9_]*::/g, '');

// The top-level template arguments of a C++ function (the first `<...>` after its name).
function templateArguments(name: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let arg = '';
  for (const c of cppView(name, 1 << 20, false)) {
    if (c === '<' && depth++ === 0) continue;
    if (depth === 0) continue;
    if (c === '>' && --depth === 0) break;
    if (c === ',' && depth === 1) {
      args.push(arg);
      arg = '';
      continue;
    }
    if (!(arg === '' && c === ' ')) arg += c;
  }
  if (arg) args.push(arg);
  return args.map((a) => withoutNamespaces(a.trimEnd()));
}

// Components of `path` that some other path of `group` lacks: where the paths differ.
const distinguishing = (path: string[], group: string[][]) => path.map((p) => group.some((other) => !other.includes(p)));

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) ++n;
  return n;
}

// The last resort for names that read alike: `start`, then the text of `name` around where it
// first differs from the nearest other name of `group`.
function aroundDifference(name: string, start: string, group: string[], max: number): string {
  const context = 8; // characters of the common part shown before the difference
  let differsAt = 0;
  for (const other of group) if (other !== name) differsAt = Math.max(differsAt, commonPrefix(name, other));
  if (differsAt < displayWidth(start) + context) return cutMiddle(name, max);
  const out = start + ELLIPSIS;
  const rest = name.slice(Math.max(0, differsAt - context));
  const room = Math.max(0, max - displayWidth(out));
  if (displayWidth(rest) <= room) return out + rest;
  if (room < 2) return cutMiddle(name, max);
  return out + head(rest, room - 1) + ELLIPSIS;
}

// `name` shortened for a row of `group` (the full names whose shortest forms are alike), at
// `detail` (more: more of the parts in which names differ).
function shortenInGroup(name: string, group: string[], detail: number, max: number): string {
  if (displayWidth(name) <= max) return name;
  if (isCppFunction(name) && detail === 1) {
    const args = templateArguments(name);
    if (args.length) {
      const kept = `<${joinKept(args, distinguishing(args, group.map(templateArguments)), ', ')}>`;
      const room = Math.max(0, max - displayWidth(kept));
      if (room >= MIN_FUNCTION_NAME) return fitCppName(name, room) + kept;
      return cutMiddle(kept, max);
    }
  }
  if (isCppFunction(name)) return cutMiddle(withoutNamespaces(cppView(name, 1 << 20, detail > 2)), max);
  if (isScopePath(name) && detail === 1) {
    const path = name.split('/');
    const differences = distinguishing(path, group.map((g) => g.split('/')));
    // The differences with the first and the last component, else with the last (the op),
    // else with the first, else alone.
    for (const [first, last] of [[true, true], [false, true], [true, false], [false, false]]) {
      const keep = [...differences];
      keep[0] ||= first;
      keep[keep.length - 1] ||= last;
      if (displayWidth(joinKept(path, keep, '/')) <= max || (!first && !last)) return fitComponents(path, keep, '/', max);
    }
  }
  return cutMiddle(name, max);
}

export function shortenName(name: string, max: number): string {
  if (displayWidth(name) <= max) return name;
  if (isCppFunction(name)) return fitCppName(name, max);
  if (isScopePath(name)) {
    const path = name.split('/');
    return fitComponents(path, path.map((_, i) => i === 0 || i === path.length - 1), '/', max);
  }
  return cutMiddle(name, max);
}

// The names of one column shortened together: distinct names stay distinct (where the width
// leaves room for a difference), showing the parts in which they differ.
export function shortenNames(names: string[], max: number): string[] {
  const shown = names.map((n) => shortenName(n, max));
  for (let detail = 1; detail <= MOST_DETAIL + 1; ++detail) {
    const rowsByShown = new Map<string, number[]>();
    names.forEach((_, i) => rowsByShown.set(shown[i], [...(rowsByShown.get(shown[i]) ?? []), i]));
    let collisions = false;
    for (const rows of rowsByShown.values()) {
      const group = [...new Set(rows.map((i) => names[i]))];
      if (group.length < 2) continue;
      collisions = true;
      for (const i of rows)
        shown[i] =
          detail <= MOST_DETAIL
            ? shortenInGroup(names[i], group, detail, max)
            : aroundDifference(names[i], shortenName(names[i], Math.floor(max / 2)), group, max);
    }
    if (!collisions) break;
  }
  return shown;
}
