// What the user picked (run, host, tool, and the tool's options) lives in the URL's hash, so
// a reload or a shared link opens the same view: #run=R&host=H&tool=T&include_idle=1

export interface ViewState {
  run: string;
  host: string; // '' means all hosts of the run
  tool: string;
  options: Record<string, string>;
}

const SELECTION_KEYS = ['run', 'host', 'tool'];

export function readViewState(hash: string = window.location.hash): ViewState {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const options: Record<string, string> = {};
  for (const [k, v] of params) if (!SELECTION_KEYS.includes(k)) options[k] = v;
  return { run: params.get('run') ?? '', host: params.get('host') ?? '', tool: params.get('tool') ?? '', options };
}

export function viewStateHash(state: ViewState): string {
  const params = new URLSearchParams();
  if (state.run) params.set('run', state.run);
  if (state.host) params.set('host', state.host);
  if (state.tool) params.set('tool', state.tool);
  for (const [k, v] of Object.entries(state.options)) params.set(k, v);
  return `#${params.toString()}`;
}
