// The server's JSON API (src/server/api.h). Every request goes to the page's own origin.

export interface RunSummary {
  name: string;
  hosts: string[];
}

// Every tool of the registry, in its order; one without data for the run says why and how to
// get some.
export interface ToolInfo {
  name: string;
  title: string;
  available: boolean;
  reason?: string;
  how_to_get?: string;
}

export const hasData = (t: ToolInfo): boolean => t.available;

export type ToolOptions = Record<string, string>;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function url(path: string, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') query.set(k, v);
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

async function getJson<T>(href: string): Promise<T> {
  const res = await fetch(href, { headers: { Accept: 'application/json' } });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`${href}: the server answered ${res.status} with something that is not JSON`, res.status);
  }
  if (!res.ok) {
    const message = (body as { error?: string })?.error ?? `HTTP ${res.status}`;
    throw new ApiError(message, res.status);
  }
  return body as T;
}

export async function fetchRuns(): Promise<RunSummary[]> {
  return (await getJson<{ runs: RunSummary[] }>('/api/runs')).runs;
}

export async function fetchTools(run: string, host: string): Promise<ToolInfo[]> {
  return (await getJson<{ tools: ToolInfo[] }>(url(`/api/runs/${encodeURIComponent(run)}/tools`, { host }))).tools;
}

export function dataUrl(run: string, host: string, tool: string, options: ToolOptions = {}): string {
  return url('/api/data', { run, host, tool, ...options });
}

export function csvUrl(run: string, host: string, tool: string, options: ToolOptions = {}): string {
  return url('/api/csv', { run, host, tool, ...options });
}

export async function fetchToolData<T>(run: string, host: string, tool: string, options: ToolOptions = {}): Promise<T> {
  return getJson<T>(dataUrl(run, host, tool, options));
}

// GET /api/diff (src/server/diff_endpoint.h): run B against run A.
export function diffUrl(runA: string, hostA: string, runB: string, hostB: string): string {
  return url('/api/diff', { run_a: runA, host_a: hostA, run_b: runB, host_b: hostB });
}

export async function fetchDiff<T>(runA: string, hostA: string, runB: string, hostB: string): Promise<T> {
  return getJson<T>(diffUrl(runA, hostA, runB, hostB));
}
