// "Capture profile": a dialog that asks running workers' profiler servers for a profile
// (the same capture as `mlprof capture`) and, when it is done, opens the new run. Workers
// that fail are listed with the reason; the others' profiles are kept.
import './capture_dialog.css';
import { fetchCapturePolicy, postCapture, type CaptureRequest, type CaptureResult, type WorkerCapture } from './capture_api';
import { clear, h } from './dom';
import { formatBytes, formatCount } from './format';

const REMEMBERED_ADDRESSES = 'mlprof.capture.addresses';

// The top bar's button; `onCaptured` shows the run a capture wrote.
export function captureButton(onCaptured: (result: CaptureResult) => void): HTMLElement {
  let dialog: CaptureDialog | null = null;
  const button = h('button', { type: 'button', class: 'button capture-open', id: 'capture-open' }, 'Capture profile');
  button.addEventListener('click', () => {
    dialog ??= new CaptureDialog(onCaptured);
    dialog.open();
  });
  return button;
}

function numberInput(id: string, value: number, min: number, max: number): HTMLInputElement {
  return h('input', { id, type: 'number', value, min, max, step: 1, required: true });
}

function levelSelect(id: string, levels: [number, string][], selected: number): HTMLSelectElement {
  return h('select', { id }, ...levels.map(([v, label]) => h('option', { value: v, selected: v === selected }, label)));
}

class CaptureDialog {
  private readonly dialog: HTMLDialogElement;
  private readonly addresses = h('input', {
    id: 'capture-addresses',
    type: 'text',
    required: true,
    placeholder: 'localhost:6009, worker-2:6009',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  private readonly duration = numberInput('capture-duration', 2000, 1, 600_000);
  private readonly hostLevel = levelSelect(
    'capture-host-level',
    [[1, '1: user annotations and steps'], [2, '2: also framework ops'], [3, '3: everything (verbose)'], [0, '0: none']],
    2,
  );
  private readonly deviceLevel = levelSelect('capture-device-level', [[1, 'On'], [0, 'Off']], 1);
  private readonly retries = numberInput('capture-retries', 2, 0, 10);
  private readonly status = h('div', { class: 'capture-status', role: 'status', 'aria-live': 'polite' });
  private readonly submit = h('button', { type: 'submit', class: 'button primary', id: 'capture-start' }, 'Capture');
  private readonly cancel = h('button', { type: 'button', class: 'button' }, 'Close');
  private readonly policyNote = h('div', { class: 'capture-policy', id: 'capture-policy' });
  private busy = false;
  private off = false; // the server does not capture: the form stays disabled

  constructor(private readonly onCaptured: (result: CaptureResult) => void) {
    this.addresses.value = localStorage.getItem(REMEMBERED_ADDRESSES) ?? '';
    const form = h(
      'form',
      { method: 'dialog' },
      h('h2', {}, 'Capture a profile from running workers'),
      this.policyNote,
      h(
        'div',
        { class: 'capture-form' },
        h('label', { for: 'capture-addresses' }, 'Profiler servers'),
        this.addresses,
        h('p', { class: 'hint' }, 'host:port of each worker, comma-separated (mlprof::start_server or MLPROF_SERVER_PORT)'),
        h('label', { for: 'capture-duration' }, 'Duration (ms)'),
        this.duration,
        h('label', { for: 'capture-host-level' }, 'Host tracer level'),
        this.hostLevel,
        h('label', { for: 'capture-device-level' }, 'Device tracer'),
        this.deviceLevel,
        h('label', { for: 'capture-retries' }, 'Retries'),
        this.retries,
        h('p', { class: 'hint' }, 'further attempts for a worker that cannot be reached'),
      ),
      this.status,
      h('div', { class: 'capture-actions' }, this.cancel, this.submit),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.capture();
    });
    this.cancel.addEventListener('click', () => this.dialog.close());
    this.dialog = h('dialog', { class: 'capture-dialog', 'aria-label': 'Capture profile' }, form);
    // A capture in progress keeps the dialog open: its result is shown there.
    this.dialog.addEventListener('cancel', (e) => {
      if (this.busy) e.preventDefault();
    });
    document.body.appendChild(this.dialog);
  }

  open(): void {
    if (!this.busy) this.showStatus('');
    this.dialog.showModal();
    this.addresses.focus();
    void this.checkPolicy();
  }

  // Says why the server does not capture (and disables the form), or whom it captures from.
  private async checkPolicy(): Promise<void> {
    clear(this.policyNote);
    try {
      const policy = await fetchCapturePolicy();
      this.off = !policy.enabled;
      if (!policy.enabled) {
        this.policyNote.append(h('div', { class: 'notice notice-caution' }, `Capture is off: ${policy.reason ?? ''}`));
      } else if (policy.workers.length) {
        this.policyNote.append(h('p', { class: 'hint' }, `This server captures only from ${policy.workers.join(', ')}.`));
        if (!this.addresses.value) this.addresses.value = policy.workers.join(', ');
      }
    } catch {
      this.off = false; // the capture request itself will say what is wrong
    }
    this.setBusy(this.busy);
  }

  private request(): CaptureRequest {
    return {
      addresses: this.addresses.value.trim(),
      duration_ms: Number(this.duration.value),
      host_tracer_level: Number(this.hostLevel.value),
      device_tracer_level: Number(this.deviceLevel.value),
      retries: Number(this.retries.value),
    };
  }

  private async capture(): Promise<void> {
    if (this.busy) return;
    const request = this.request();
    const workers = request.addresses.split(',').filter((a) => a.trim()).length;
    localStorage.setItem(REMEMBERED_ADDRESSES, request.addresses);
    this.setBusy(true);
    this.showStatus('running', `Capturing ${formatCount(request.duration_ms)} ms from ${workers} worker${workers === 1 ? '' : 's'}…`);
    let result: CaptureResult;
    try {
      result = await postCapture(request);
    } catch (e) {
      this.showStatus('failed', `The capture failed: ${e instanceof Error ? e.message : String(e)}`);
      return;
    } finally {
      this.setBusy(false);
    }
    if (result.all_ok && !result.workers.some((w) => w.empty_trace)) {
      this.dialog.close();
      this.onCaptured(result);
      return;
    }
    this.showResult(result);
  }

  // Some workers failed or recorded nothing: say which, and offer the run if there is one.
  private showResult(result: CaptureResult): void {
    const saved = result.workers.filter((w) => w.ok).length;
    const summary = result.run
      ? `Run ${result.run}: ${saved} of ${result.workers.length} workers captured.`
      : 'No worker could be captured.';
    const open = h('button', { type: 'button', class: 'button', id: 'capture-open-run' }, 'Open run');
    open.addEventListener('click', () => {
      this.dialog.close();
      this.onCaptured(result);
    });
    this.showStatus(result.run ? 'partial' : 'failed', summary, workerTable(result.workers), result.run ? open : null);
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    for (const el of [this.addresses, this.duration, this.hostLevel, this.deviceLevel, this.retries, this.submit])
      el.disabled = busy || this.off;
    this.submit.textContent = busy ? 'Capturing…' : 'Capture';
  }

  private showStatus(state: string, ...content: (Node | string | null)[]): void {
    clear(this.status);
    this.status.dataset.state = state;
    const kind = state === 'failed' ? 'notice-error' : state === 'partial' ? 'notice-caution' : 'notice-info';
    if (content.length) this.status.append(h('div', { class: `notice ${kind}` }, ...content));
  }
}

function workerTable(workers: WorkerCapture[]): HTMLElement {
  return h(
    'table',
    { class: 'capture-workers', 'aria-label': 'Workers' },
    h(
      'tbody',
      {},
      ...workers.map((w) => {
        const outcome = !w.ok
          ? h('td', { class: 'failed' }, w.error)
          : w.empty_trace
            ? h('td', { class: 'empty' }, 'recorded nothing in the window (is the program annotated and running?)')
            : h('td', {}, `${formatCount(w.events)} events · ${formatBytes(w.bytes)}`);
        return h('tr', { 'data-ok': String(w.ok) }, h('td', {}, w.address), outcome);
      }),
    ),
  );
}
