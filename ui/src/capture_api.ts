// POST /api/capture (src/server/capture_endpoint.h): a capture from running workers'
// profiler servers into the served logdir. The answer comes when the capture is done.

export interface CaptureRequest {
  addresses: string; // host:port[,host:port...]
  duration_ms: number;
  host_tracer_level: number;
  device_tracer_level: number;
  retries: number;
}

export interface WorkerCapture {
  address: string;
  ok: boolean;
  empty_trace: boolean;
  error: string;
  events: number;
  bytes: number;
}

export interface CaptureResult {
  run: string; // '' when no worker wrote anything
  all_ok: boolean;
  workers: WorkerCapture[];
}

export async function postCapture(request: CaptureRequest): Promise<CaptureResult> {
  const res = await fetch('/api/capture', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(request),
  });
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new Error(`the server answered ${res.status} with something that is not JSON`);
  }
  if (!res.ok) throw new Error((body as { error?: string })?.error ?? `HTTP ${res.status}`);
  return body as CaptureResult;
}

// GET /api/capture: whether this server captures, and from whom (a server listening beyond
// this machine captures only from the workers its operator lists).
export interface CapturePolicy {
  enabled: boolean;
  reason?: string; // why not, when off
  workers: string[]; // the only workers allowed; empty: any
}

export async function fetchCapturePolicy(): Promise<CapturePolicy> {
  const res = await fetch('/api/capture', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET /api/capture: HTTP ${res.status}`);
  return (await res.json()) as CapturePolicy;
}
