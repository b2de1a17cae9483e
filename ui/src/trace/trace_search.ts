// The trace viewer's search by name: the box and its count, the names in the reply that match
// (drawn highlighted, the others dimmed), and stepping through the server's hits (Enter,
// shift+Enter), each revealed and selected in turn.
import { h } from '../dom';
import { fetchSearch, type TraceSearchHit } from './trace_api';

export interface SearchHost {
  run: string;
  host: string;
  element: HTMLElement; // carries data-matches
  names(): Record<string, string>; // the reply in hand's
  goTo(hit: TraceSearchHit): void; // reveal and select
  redraw(): void;
  alive(): boolean;
}

export class TraceSearch {
  readonly input = h('input', { type: 'search', class: 'trace-search', placeholder: 'Search events by name' }) as HTMLInputElement;
  readonly count = h('span', { class: 'trace-search-count' });
  readonly matchedNames = new Set<number>();
  private text = '';
  private hits: TraceSearchHit[] = [];
  private hitIndex = -1;

  constructor(private readonly host: SearchHost) {}

  // Enter searches when the text changed, else steps to the next (shift: previous) hit.
  onKey(e: KeyboardEvent): void {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (this.input.value.trim() !== this.text) void this.search(this.input.value.trim());
    else this.step(e.shiftKey ? -1 : 1);
  }

  // Names are numbered per reply: match again when a new one arrives.
  matchNames(): void {
    this.matchedNames.clear();
    if (!this.text) return;
    const q = this.text.toLowerCase();
    for (const [id, name] of Object.entries(this.host.names()))
      if (name.toLowerCase().includes(q)) this.matchedNames.add(Number(id));
  }

  async search(text: string): Promise<void> {
    this.text = text;
    this.hits = [];
    this.hitIndex = -1;
    this.matchNames();
    if (!text) {
      this.count.textContent = '';
      this.host.element.removeAttribute('data-matches');
      this.host.redraw();
      return;
    }
    this.count.textContent = 'Searching…';
    try {
      const reply = await fetchSearch(this.host.run, this.host.host, text);
      if (text !== this.text || !this.host.alive()) return;
      this.hits = reply.events;
      this.host.element.setAttribute('data-matches', String(reply.total));
      this.count.textContent = `${reply.total.toLocaleString()} match${reply.total === 1 ? '' : 'es'}`;
      if (this.hits.length) this.step(1);
      else this.host.redraw();
    } catch (e) {
      this.count.textContent = `Search failed: ${(e as Error).message}`;
    }
  }

  step(delta: number): void {
    if (!this.hits.length) return;
    this.hitIndex = (this.hitIndex + delta + this.hits.length) % this.hits.length;
    const hit = this.hits[this.hitIndex];
    this.count.textContent = `${this.hitIndex + 1} / ${this.host.element.getAttribute('data-matches') ?? this.hits.length} matches`;
    this.host.goTo(hit);
  }
}
