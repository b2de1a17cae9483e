// A table that sorts by a click on a column heading and filters rows by a search box. Long
// tables show their first rows and grow on demand, so a profile with 100k ops stays fast.
// Name columns take the width the numbers leave, one line each with the whole name on hover;
// the first columns (up to the first name column) stay put while the others scroll sideways.
// Columns of less interest start hidden behind the "Columns" menu, so the default ones fit a
// 1280 px window; names of a column can be shortened together where they differ.
import { clear, h } from '../dom';
import { shortenNames } from '../name_shortening';
import { filterRows, sortRows, type CellValue, type SortState } from './table_model';

export interface Column<Row> {
  key: string;
  title: string;
  value: (row: Row) => CellValue; // what sorting and filtering see
  render?: (row: Row) => Node | string; // what the cell shows (default: the value)
  numeric?: boolean; // right-aligned; the first click sorts largest first
  name?: boolean; // long names (op names): one line, cut with an ellipsis, whole on hover
  help?: string; // tooltip on the heading
  optional?: boolean; // hidden until shown from the "Columns" menu
  shorten?: number; // names shortened to this many characters (as the CLI does), whole on hover
  whole?: (row: Row) => string | undefined; // the whole name on hover, where the value is a short one (an HLO op's text)
  link?: (row: Row) => { href: string; title: string } | undefined; // the cell's content links there
  aside?: (row: Row) => string | undefined; // a muted line under the cell's content (what tells rows of one name apart)
}

export interface DataTableOptions<Row> {
  columns: Column<Row>[];
  rows: Row[];
  sort?: SortState;
  filterPlaceholder?: string;
  pageSize?: number;
  emptyText?: string;
  label?: string; // accessible name, also used by tests to find the table
  filterable?: boolean; // default: when there are more than 10 rows
  sticky?: number; // leading columns that stay put (default: up to the first name column)
}

export function dataTable<Row>(opts: DataTableOptions<Row>): HTMLElement {
  const pageSize = opts.pageSize ?? 100;
  let sort: SortState | undefined = opts.sort;
  let filter = '';
  let shown = pageSize;

  const textColumns = opts.columns.filter((c) => !c.numeric).map((c) => c.value);
  const shownKeys = new Set(opts.columns.filter((c) => !c.optional).map((c) => c.key));
  let columns = opts.columns;
  // Each shortened column's short forms, computed once over all its names.
  const shortForms = new Map<string, Map<string, string>>();
  for (const column of opts.columns) {
    if (!column.shorten) continue;
    const names = [...new Set(opts.rows.map((r) => String(column.value(r) ?? '')))];
    const short = shortenNames(names, column.shorten);
    shortForms.set(column.key, new Map(names.map((n, i) => [n, short[i]])));
  }
  const search = h('input', {
    type: 'search',
    class: 'table-filter',
    placeholder: opts.filterPlaceholder ?? 'Filter rows',
    'aria-label': `Filter ${opts.label ?? 'table'}`,
  });
  const count = h('span', { class: 'table-count' });
  const head = h('thead');
  const body = h('tbody');
  const more = h('button', { class: 'table-more', type: 'button' });
  const table = h('table', { class: 'data-table', 'aria-label': opts.label ?? '' }, head, body);
  let sticky = 0;
  let firstName = -1;
  function chooseColumns(): void {
    columns = opts.columns.filter((c) => shownKeys.has(c.key));
    firstName = columns.findIndex((c) => c.name);
    sticky = Math.min(opts.sticky ?? (firstName >= 0 ? firstName + 1 : 0), columns.length);
  }
  chooseColumns();
  const cellClass = (column: Column<Row>, i: number) =>
    [column.numeric ? 'num' : '', column.name ? 'name' : '', column.name && i !== firstName ? 'name-more' : '', i < sticky ? 'sticky' : '', i === sticky - 1 ? 'sticky-last' : '']
      .filter(Boolean)
      .join(' ');

  function visibleRows(): Row[] {
    let rows = filterRows(opts.rows, filter, textColumns);
    const column = sort && opts.columns.find((c) => c.key === sort!.key);
    if (column) rows = sortRows(rows, column.value, sort!.descending);
    return rows;
  }

  function renderHead(): void {
    clear(head);
    const tr = h('tr');
    columns.forEach((column, i) => {
      const active = sort?.key === column.key;
      const arrow = active ? (sort!.descending ? ' ▼' : ' ▲') : '';
      const th = h(
        'th',
        {
          class: `${cellClass(column, i)} ${active ? 'sorted' : ''}`.trim(),
          title: column.help,
          // A shortened column is as wide as its short names (0.6 em a character), which then show whole.
          style: column.shorten ? `min-width: calc(${(column.shorten * 0.6).toFixed(1)}em + 20px)` : undefined,
          'aria-sort': active ? (sort!.descending ? 'descending' : 'ascending') : 'none',
        },
        h('button', { type: 'button', onclick: () => toggleSort(column) }, column.title, arrow),
      );
      tr.appendChild(th);
    });
    head.appendChild(tr);
  }

  function renderBody(): void {
    clear(body);
    const rows = visibleRows();
    for (const row of rows.slice(0, shown)) {
      const tr = h('tr');
      columns.forEach((column, i) => {
        const text = String(column.value(row) ?? '');
        const short = shortForms.get(column.key)?.get(text);
        const rendered = short !== undefined ? short : column.render ? column.render(row) : text;
        const shown = column.name && typeof rendered === 'string' && short === undefined ? nameCell(rendered) : rendered;
        const link = column.link?.(row);
        const content = link ? h('a', { class: 'row-link', href: link.href, title: `${link.title}${column.name ? `: ${text}` : ''}` }, shown) : shown;
        const title = column.whole?.(row) ?? (column.name || short !== undefined ? text : undefined);
        const shortClass = short !== undefined ? ' short' : '';
        const aside = column.aside?.(row);
        tr.appendChild(h('td', { class: cellClass(column, i) + shortClass, title }, content, aside ? h('div', { class: 'cell-aside' }, aside) : ''));
      });
      body.appendChild(tr);
    }
    if (rows.length === 0) {
      body.appendChild(h('tr', {}, h('td', { class: 'empty', colspan: columns.length }, opts.emptyText ?? 'No rows')));
    }
    const rowsText = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
    count.textContent =
      rows.length === opts.rows.length ? rowsText(rows.length) : `${rows.length} of ${rowsText(opts.rows.length)}`;
    more.hidden = rows.length <= shown;
    more.textContent = `Show ${Math.min(pageSize, rows.length - shown)} more`;
    placeSticky();
  }

  // Each sticky column sits right of the ones before it: their widths, once laid out.
  function placeSticky(): void {
    if (sticky < 2) return;
    if (!table.isConnected && body.childElementCount && table.dataset.placed) {
      window.removeEventListener('resize', placeSticky); // the table's page is gone
      return;
    }
    table.dataset.placed = '1';
    requestAnimationFrame(() => {
      const ths = [...head.querySelectorAll('th')].slice(0, sticky);
      let left = 0;
      const lefts = ths.map((th) => {
        const at = left;
        left += th.getBoundingClientRect().width;
        return `${at}px`;
      });
      for (const tr of table.querySelectorAll('tr'))
        for (let i = 1; i < sticky && i < tr.children.length; ++i) (tr.children[i] as HTMLElement).style.left = lefts[i];
    });
  }
  window.addEventListener('resize', placeSticky, { passive: true });

  function toggleSort(column: Column<Row>): void {
    if (sort?.key === column.key) sort = { key: column.key, descending: !sort.descending };
    else sort = { key: column.key, descending: !!column.numeric };
    renderHead();
    renderBody();
  }

  search.addEventListener('input', () => {
    filter = search.value;
    shown = pageSize;
    renderBody();
  });
  more.addEventListener('click', () => {
    shown += pageSize;
    renderBody();
  });

  // Which columns show: the defaults ticked, the optional ones not.
  function columnMenu(): HTMLElement | null {
    if (!opts.columns.some((c) => c.optional)) return null;
    const boxes = opts.columns.map((column) => {
      const box = h('input', { type: 'checkbox', checked: shownKeys.has(column.key), 'data-column': column.key });
      box.addEventListener('change', () => {
        if (box.checked) shownKeys.add(column.key);
        else shownKeys.delete(column.key);
        chooseColumns();
        renderHead();
        renderBody();
      });
      return h('label', { title: column.help }, box, ` ${column.title}`);
    });
    return h('details', { class: 'table-columns' }, h('summary', {}, 'Columns'), h('div', { class: 'table-columns-list' }, ...boxes));
  }

  renderHead();
  renderBody();
  const filterable = opts.filterable ?? opts.rows.length > 10;
  const menu = columnMenu();
  return h(
    'div',
    { class: 'table-block' },
    filterable || menu ? h('div', { class: 'table-toolbar' }, filterable ? search : null, filterable ? count : null, menu) : null,
    h('div', { class: 'table-scroll' }, table),
    more,
  );
}

// A long name cut in its middle when the cell is narrow: the start gives way (with an
// ellipsis), its last part always shows. Scope paths ("replica_4/bert/.../layer_3/Cast") differ
// at their end.
const TAIL_CHARS = 32;

export function nameTail(text: string): string {
  if (text.length <= TAIL_CHARS + 8) return '';
  const slash = text.lastIndexOf('/', text.length - 2);
  const cut = slash >= 0 && text.length - slash - 1 <= TAIL_CHARS ? text.lastIndexOf('/', slash - 1) : -1;
  const from = cut >= 0 && text.length - cut <= TAIL_CHARS ? cut : slash >= 0 && text.length - slash <= TAIL_CHARS ? slash : text.length - TAIL_CHARS;
  return text.slice(from);
}

function nameCell(text: string): Node | string {
  const tail = nameTail(text);
  if (!tail) return text;
  return h('span', { class: 'name-split' }, h('span', { class: 'name-head' }, text.slice(0, text.length - tail.length)), h('span', { class: 'name-tail' }, tail));
}
