// What every tool page gets and gives. A page is one module that renders one tool's data;
// adding a tool's page means writing such a module and listing it in registry.ts.
import type { ToolOptions } from '../api';

export interface PageContext {
  run: string;
  host: string; // '' for all hosts
  tool: string;
  title: string; // the tool's title, from the server's tool list
  options: ToolOptions; // the tool options in the URL (e.g. include_idle)
  // The tool's JSON, with the page's options unless others are given.
  fetchData<T>(options?: ToolOptions): Promise<T>;
  // Where the tool's CSV downloads from.
  csvUrl(options?: ToolOptions): string;
  // Changes one option: updates the URL and renders the page again.
  setOption(name: string, value: string | undefined): void;
  // Runs when the user leaves the page (charts stop observing resizes, timers stop).
  onDispose(cleanup: () => void): void;
}

export interface ToolPage {
  render(root: HTMLElement, ctx: PageContext): Promise<void>;
}
