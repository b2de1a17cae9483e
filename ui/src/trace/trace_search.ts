// The trace viewer's search by name: the box, its scope (device tracks, host threads or both)
// and count, the names in the reply that match (drawn highlighted, the others dimmed), and the
// table of matches, like Perfetto's query result panel: name, host, track, start and duration,
// sorted by start or the longest first (the server sorts, so the first thousand of a large
// trace are the right thousand), each row going to its event. Enter and shift+Enter step
// through the matches in the table's order; "Longest" and "Next longest" go by duration.
import { clear, h } from '../dom';
import { shortenNames } from '../name_shortening';
import { formatPs } from './time_scale';
import { fetchSearch, type SearchOrder, type SearchScope, type TraceSearchHit, type TraceSection } from './trace_api';

export interface SearchHost {
  run: string;
  host: string;
  element: HTMLElement; // carries data-matches
  names(): Record<string, string>; // the reply in hand's
  sections(): TraceSection[]; // the reply in hand's
  goTo(hit: TraceSearchHit): void; // reveal, scroll to its track and select
  redraw(): void;
  resized(): void; // the matches table appeared, went or changed height
  alive(): boolean;
}

const NAME_CHARS = 90;

// Long names (templated kernels) shortened together, so that they differ where they differ.
function shortNames(names: string[]): Map<string, string> {
  const distinct = [...new Set(names)];
  const short = shortenNames(distinct, NAME_CHARS);
  return new Map(distinct.map((n, i) => [n, short[i]]));
}

export class TraceSearch {
  readonly input = h('input', { type: 'search', class: 'trace-search', placeholder: 'Search events by name', 'aria-label': 'Search events by name' }) as HTMLInputElement;
  readonly scopeSelect = h(
    'select',
    { class: 'trace-search-scope', 'aria-label': 'Search on', title: 'Which tracks the search looks at' },
    h('option', { value: 'all' }, 'All tracks'),
    h('option', { value: 'device' }, 'Device tracks'),
    h('option', { value: 'host' }, 'Host threads'),
  ) as HTMLSelectElement;
  readonly count = h('span', { class: 'trace-search-count' });
  // Below the timeline: the matches, hidden until a search runs.
  readonly panel = h('div', { class: 'trace-search-results', hidden: true, 'data-testid': 'search-results' });
  readonly matchedNames = new Set<number>();
  matchedLines: Set<number> | null = null; // the tracks in the scope (null: every track)
  version = 0; // counts the searches (text or scope), on which the rows' look depends
  private text = '';
  private order: SearchOrder = 'start';
  private hits: TraceSearchHit[] = [];
  private total = 0;
  private hitIndex = -1;
  private rows: HTMLElement[] = [];
  private token = 0;

  constructor(private readonly host: SearchHost) {
    this.scopeSelect.addEventListener('change', () => void this.search(this.text));
  }

  private get scope(): SearchScope {
    return this.scopeSelect.value as SearchScope;
  }

  // Enter searches when the text changed, else steps to the next (shift: previous) hit.
  onKey(e: KeyboardEvent): void {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (this.input.value.trim() !== this.text) void this.search(this.input.value.trim());
    else this.step(e.shiftKey ? -1 : 1);
  }

  // Names are numbered per reply: match again when a new one arrives. Only the scope's tracks
  // highlight their matches.
  matchNames(): void {
    this.matchedNames.clear();
    const scope = this.scope;
    this.matchedLines =
      scope === 'all' ? null : new Set(this.host.sections().filter((s) => s.kind === scope).flatMap((s) => s.tracks.map((t) => t.line)));
    if (!this.text) return;
    const q = this.text.toLowerCase();
    for (const [id, name] of Object.entries(this.host.names()))
      if (name.toLowerCase().includes(q)) this.matchedNames.add(Number(id));
  }

  // Runs the search (the text, the scope and the order in hand) and goes to the first match,
  // or to `then` of the new list.
  async search(text: string, then: (hits: TraceSearchHit[]) => number = () => 0): Promise<void> {
    const token = ++this.token;
    ++this.version;
    this.text = text;
    this.hits = [];
    this.hitIndex = -1;
    this.matchNames();
    if (!text) {
      this.count.textContent = '';
      this.host.element.removeAttribute('data-matches');
      this.panel.hidden = true;
      this.host.resized();
      this.host.redraw();
      return;
    }
    this.count.textContent = 'Searching…';
    try {
      const reply = await fetchSearch(this.host.run, this.host.host, text, { scope: this.scope, sort: this.order });
      if (token !== this.token || !this.host.alive()) return;
      this.hits = reply.events;
      this.total = reply.total;
      this.host.element.setAttribute('data-matches', String(reply.total));
      this.count.textContent = `${reply.total.toLocaleString()} match${reply.total === 1 ? '' : 'es'}`;
      this.renderTable();
      if (this.hits.length) this.goTo(Math.max(0, Math.min(then(this.hits), this.hits.length - 1)));
      else this.host.redraw();
    } catch (e) {
      if (token === this.token) this.count.textContent = `Search failed: ${(e as Error).message}`;
    }
  }

  step(delta: number): void {
    if (!this.hits.length) return;
    this.goTo((this.hitIndex + delta + this.hits.length) % this.hits.length);
  }

  // The longest match (nth = 0), or the next longest after the one in hand.
  async longest(next: boolean): Promise<void> {
    if (!this.text) {
      const typed = this.input.value.trim();
      if (!typed) return;
      this.text = typed;
    }
    if (this.order === 'duration' && this.hits.length) {
      if (next) this.step(1);
      else this.goTo(0);
      return;
    }
    const current = this.hits[this.hitIndex]?.event;
    this.order = 'duration';
    await this.search(this.text, (hits) => {
      if (!next) return 0;
      const at = hits.findIndex((x) => x.event === current);
      return at < 0 ? 0 : at + 1;
    });
  }

  private setOrder(order: SearchOrder): void {
    if (order === this.order) return;
    const current = this.hits[this.hitIndex]?.event;
    this.order = order;
    // Stay on the match in hand where the new list has it.
    void this.search(this.text, (hits) => Math.max(0, hits.findIndex((x) => x.event === current)));
  }

  private goTo(index: number): void {
    this.rows[this.hitIndex]?.classList.remove('current');
    this.hitIndex = index;
    const hit = this.hits[index];
    const row = this.rows[index];
    if (row) {
      row.classList.add('current');
      row.scrollIntoView({ block: 'nearest' });
    }
    this.count.textContent = `${index + 1} / ${this.total.toLocaleString()} match${this.total === 1 ? '' : 'es'}`;
    this.host.element.setAttribute('data-search-index', String(index));
    this.host.goTo(hit);
  }

  private renderTable(): void {
    clear(this.panel);
    this.rows = [];
    this.panel.hidden = false;
    const hosts = new Set(this.hits.map((x) => x.host));
    const sortHead = (label: string, order: SearchOrder) =>
      h(
        'th',
        {
          class: 'num sortable',
          'aria-sort': this.order === order ? (order === 'duration' ? 'descending' : 'ascending') : 'none',
          title: order === 'duration' ? 'The longest first' : 'In time order',
          onclick: () => this.setOrder(order),
        },
        label,
      );
    const button = (label: string, title: string, onClick: () => void) =>
      h('button', { type: 'button', class: 'trace-button', title, onclick: onClick }, label);
    const scopeWords = { all: 'all tracks', device: 'device tracks', host: 'host threads' }[this.scope];
    const shown = this.hits.length < this.total ? `, the ${this.hits.length.toLocaleString()} ${this.order === 'duration' ? 'longest' : 'first'} listed` : '';
    const body = h('tbody');
    const short = shortNames(this.hits.map((x) => x.name));
    this.hits.forEach((hit, i) => {
      const name = short.get(hit.name) ?? hit.name;
      const row = h(
        'tr',
        { tabindex: '0', 'data-event': String(hit.event), 'data-duration-ps': String(hit.duration_ps), onclick: () => this.goTo(i) },
        h('td', { class: 'name', title: hit.name }, name),
        hosts.size > 1 ? h('td', {}, hit.host) : null,
        h('td', { class: 'track', title: `${hit.section} · ${hit.track}` }, `${hit.section} · ${hit.track}`),
        h('td', { class: 'num' }, formatPs(hit.start_ps)),
        h('td', { class: 'num' }, formatPs(hit.duration_ps)),
      );
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.goTo(i);
      });
      this.rows.push(row);
      body.append(row);
    });
    this.panel.append(
      h(
        'div',
        { class: 'trace-search-head' },
        h('strong', {}, `${this.total.toLocaleString()} match${this.total === 1 ? '' : 'es'} for “${this.text}”`),
        h('span', { class: 'muted' }, ` on ${scopeWords}${shown}`),
        h('span', { class: 'trace-spacer' }),
        button('Longest', 'Go to the longest match', () => void this.longest(false)),
        button('Next longest', 'Go to the next longest match', () => void this.longest(true)),
        button('Close', 'Close the matches (the search stays)', () => {
          this.panel.hidden = true;
          this.host.resized();
        }),
      ),
      h(
        'div',
        { class: 'trace-search-scroll' },
        h(
          'table',
          { class: 'trace-stats trace-search-table', 'aria-label': 'Search matches' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', {}, 'Name'), hosts.size > 1 ? h('th', {}, 'Host') : null, h('th', {}, 'Track'), sortHead('Start', 'start'), sortHead('Duration', 'duration')),
          ),
          body,
        ),
      ),
    );
    this.host.resized();
  }
}
