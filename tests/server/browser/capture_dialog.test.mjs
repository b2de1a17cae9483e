// The "Capture profile" dialog in a real headless Chromium: `mlprof serve` over an empty
// logdir, worker processes with profiler servers on loopback (tests/rpc/rpc_test_worker),
// a capture from the dialog, and the pod viewer of the new run. Run by ctest as
// ui_capture_browser_test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  launchBrowser,
  screenshotDirectory,
  settled,
  skipUnlessRunnable,
  startServer,
  visit as visitPage,
} from './harness.mjs';

skipUnlessRunnable();

const screenshotDir = screenshotDirectory();

let logdir;
let server;
let browser;
const workers = [];

// Starts a worker and resolves with its address once it prints "port N". It exits when its
// stdin closes; stop() does that (and kills it by its pid if it lingers).
function startWorker(args = []) {
  const program = process.env.RPC_TEST_WORKER;
  if (!program) throw new Error('RPC_TEST_WORKER is not set (ctest sets it; see tests/server/CMakeLists.txt)');
  const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const worker = {
    child,
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => clearTimeout(timer));
    },
  };
  workers.push(worker);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker printed no port in 30 s: ${output}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const m = output.match(/^port (\d+)\n/);
      if (m) {
        clearTimeout(timer);
        worker.address = `127.0.0.1:${m[1]}`;
        resolve(worker);
      }
    });
    child.on('exit', (code) => reject(new Error(`the worker exited with ${code}: ${output}`)));
  });
}

function killNow(worker) {
  return new Promise((resolve) => {
    worker.child.once('exit', resolve);
    worker.child.kill('SIGKILL');
  });
}

before(async () => {
  logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-capture-ui-'));
  server = await startServer(logdir);
  browser = await launchBrowser();
});

after(async () => {
  for (const w of workers) w.stop();
  await browser?.close();
  if (server) assert.equal(await server.stop(), 0, 'mlprof serve exits 0 on SIGTERM');
  if (logdir) fs.rmSync(logdir, { recursive: true, force: true });
});

// Opens the UI, runs `check`, and asserts that nothing went wrong on the way (harness.mjs).
const visit = (check) =>
  visitPage({ context: browser.context, url: server.url, ready: (page) => settled(page), screenshotDir }, check);

async function fillAndCapture(page, addresses, durationMs) {
  await page.click('#capture-open');
  await page.fill('#capture-addresses', addresses);
  await page.fill('#capture-duration', String(durationMs));
  await page.click('#capture-start');
}

// The generous timeout covers the capture itself on a loaded machine.
async function waitForView(page, pattern) {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.body.dataset.view ?? ''),
    pattern.source,
    { timeout: 60_000 },
  );
  await page.waitForSelector('.page[data-ready="true"]', { timeout: 30_000 });
}

describe('capture dialog', () => {
  test('captures two workers and opens the new run in the pod viewer', async () => {
    const a = await startWorker();
    const b = await startWorker(['--input-ms', '20']);
    await visit(async (page) => {
      await fillAndCapture(page, `${a.address}, grpc://${b.address}`, 500);
      await waitForView(page, /tool=pod_viewer/);
      const runs = await page.locator('#run-select option').allTextContents();
      assert.equal(runs.length, 1, 'the new run is listed');
      assert.equal(await page.locator('#capture-addresses').isVisible(), false, 'the dialog closed');

      const rows = await page.locator('table[aria-label="Workers"] tbody tr').count();
      assert.equal(rows, 2, 'one row per worker');
      const banner = await page.locator('[data-testid="slowest-worker"]').textContent();
      assert.match(banner, new RegExp(`Slowest worker: ${b.address.replace(':', '_').replace(/\./g, '\\.')}`));
      assert.match(banner, /its bottleneck is input/);

      // The step selector shows one step across the workers.
      const steps = await page.locator('#pod-step-select option').allTextContents();
      assert.ok(steps.length > 1, `steps to pick: ${steps}`);
      await page.selectOption('#pod-step-select', { index: 1 });
      await waitForView(page, /step=\d+/);
      assert.match(await page.locator('[data-testid="pod-caption"]').textContent(), /^Step \d+: the slowest worker was /);
      await page.screenshot({ path: path.join(screenshotDir, 'pod-viewer.png'), fullPage: true });
    });
  });

  test('a dead worker is named, the others are kept, and the run opens on request', async () => {
    const alive = await startWorker();
    const dead = await startWorker();
    await killNow(dead);
    await visit(async (page) => {
      await fillAndCapture(page, `${alive.address},${dead.address}`, 300);
      await page.waitForSelector('.capture-status[data-state="partial"]', { timeout: 60_000 });
      const results = await page.locator('table.capture-workers tr').evaluateAll((trs) =>
        trs.map((tr) => ({ ok: tr.dataset.ok, text: tr.textContent })),
      );
      assert.equal(results.length, 2);
      assert.equal(results[0].ok, 'true');
      assert.equal(results[1].ok, 'false');
      assert.match(results[1].text, new RegExp(`${dead.address}.*unavailable`));
      await page.screenshot({ path: path.join(screenshotDir, 'capture-partial.png'), fullPage: true });
      const run = (await page.locator('.capture-status').textContent()).match(/Run (\S+): 1 of 2 workers captured/)?.[1];
      assert.ok(run, 'the dialog names the run');
      await page.click('#capture-open-run');
      await waitForView(page, new RegExp(`run=${run}`));
      assert.equal(await page.locator('#host-select').inputValue(), alive.address.replace(':', '_'));
    });
  });

  test('the endpoint takes only same-origin JSON', async () => {
    const url = `${server.url}api/capture`;
    const body = JSON.stringify({ addresses: '127.0.0.1:1', duration_ms: 10 });
    const form = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } });
    assert.equal(form.status, 415);
    const foreign = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', Origin: 'http://evil.example' },
    });
    assert.equal(foreign.status, 403);
    const bad = await fetch(url, { method: 'POST', body: '{"addresses": "nope"}', headers: { 'Content-Type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error, /not a worker address/);
  });

  // A server listening beyond loopback: anyone on the network could otherwise make it open
  // connections to any address they name.
  test('bound beyond loopback, capture is off and the dialog says why; --allow-capture allows only the listed workers', async () => {
    const worker = await startWorker();
    const wide = await startServer(logdir, ['--bind', '0.0.0.0']);
    try {
      await visitPage({ context: browser.context, url: wide.url, ready: (page) => settled(page), screenshotDir }, async (page) => {
        await page.click('#capture-open');
        await page.waitForSelector('#capture-policy .notice');
        assert.match(await page.locator('#capture-policy').textContent(), /Capture is off: .*--allow-capture/);
        assert.equal(await page.locator('#capture-start').isDisabled(), true);
        await page.screenshot({ path: path.join(screenshotDir, 'capture-off.png') });
      });
      const refused = await fetch(`${wide.url}api/capture`, {
        method: 'POST',
        body: JSON.stringify({ addresses: worker.address, duration_ms: 10 }),
        headers: { 'Content-Type': 'application/json' },
      });
      assert.equal(refused.status, 403);
      assert.match((await refused.json()).error, /capture is off/);
    } finally {
      assert.equal(await wide.stop(), 0);
    }
    const listed = await startServer(logdir, ['--bind', '0.0.0.0', '--allow-capture', worker.address]);
    try {
      const policy = await (await fetch(`${listed.url}api/capture`)).json();
      assert.deepEqual(policy, { enabled: true, workers: [worker.address] });
      const other = await fetch(`${listed.url}api/capture`, {
        method: 'POST',
        body: JSON.stringify({ addresses: `${worker.address},127.0.0.1:1`, duration_ms: 10 }),
        headers: { 'Content-Type': 'application/json' },
      });
      assert.equal(other.status, 403);
      assert.match((await other.json()).error, /127\.0\.0\.1:1 is not allowed/);
      const ok = await fetch(`${listed.url}api/capture`, {
        method: 'POST',
        body: JSON.stringify({ addresses: worker.address, duration_ms: 100 }),
        headers: { 'Content-Type': 'application/json' },
      });
      assert.equal(ok.status, 200);
      assert.equal((await ok.json()).all_ok, true);
    } finally {
      assert.equal(await listed.stop(), 0);
    }
    // On loopback (the default) the dialog captures from anyone, as before.
    assert.deepEqual(await (await fetch(`${server.url}api/capture`)).json(), { enabled: true, workers: [] });
  });
});
