// The memory profile page in a real headless Chromium, over the profile the pool allocator
// example (examples/pool_allocator) records: the page must show the counters the pool
// printed about itself. Run by ctest as ui_memory_profile_browser_test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, screenshotDirectory, skipUnlessRunnable, startServer, visit as visitPage } from './harness.mjs';

skipUnlessRunnable();

const screenshotDir = screenshotDirectory();

let logdir;
let server;
let browser;
let pool; // what the example printed about its pool

// Runs the example into a fresh logdir and reads its counters from its output.
function recordPoolProfile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-memory-ui-'));
  const example = process.env.POOL_ALLOCATOR;
  if (!example) throw new Error('POOL_ALLOCATOR is not set (ctest sets it; see tests/server/CMakeLists.txt)');
  const r = spawnSync(example, ['--logdir', dir, '--run-name', 'pool_run', '--steps', '4'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pool_allocator failed: ${r.stderr}`);
  const counts = r.stdout.match(/(\d+) allocations, (\d+) deallocations/);
  const peak = r.stdout.match(/in_use=(\d+) free=(\d+) largest_free_chunk=(\d+)/);
  assert.ok(counts && peak, r.stdout);
  return {
    dir,
    allocations: Number(counts[1]),
    deallocations: Number(counts[2]),
    free: Number(peak[2]),
    largest: Number(peak[3]),
  };
}

// TensorFlow's file as a second run, when the shared test data is there: four allocators.
const tensorflowFile = path.join(process.env.MLPROF_TESTDATA ?? '', 'tensorflow', 'gpu_multi_worker.xplane.pb');
const haveTensorFlow = Boolean(process.env.MLPROF_TESTDATA) && fs.existsSync(tensorflowFile);

before(async () => {
  pool = recordPoolProfile();
  logdir = pool.dir;
  if (haveTensorFlow) {
    const run = path.join(logdir, 'plugins', 'profile', 'tensorflow');
    fs.mkdirSync(run, { recursive: true });
    fs.copyFileSync(tensorflowFile, path.join(run, 'worker.xplane.pb'));
  }
  server = await startServer(logdir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (server) assert.equal(await server.stop(), 0, 'mlprof serve exits 0 on SIGTERM');
  if (logdir) fs.rmSync(logdir, { recursive: true, force: true });
});

const visit = (hash, check) =>
  visitPage(
    {
      context: browser.context,
      url: `${server.url}${hash}`,
      ready: (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 15_000 }),
      screenshotDir,
    },
    check,
  );

// The summary's label -> value pairs.
async function summary(page) {
  const pairs = await page
    .locator('[data-testid="memory-summary"] dl')
    .evaluate((dl) => [...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]));
  return Object.fromEntries(pairs);
}

async function breakdownOps(page) {
  return page
    .locator('table[aria-label="Memory breakdown"] tbody tr')
    .evaluateAll((trs) => trs.map((tr) => tr.querySelector('td').textContent));
}

describe('memory profile', () => {
  test('shows the summary, a timeline with the event behind each point, and the breakdown', async () => {
    await visit('#run=pool_run&tool=memory_profile', async (page) => {
      assert.equal(await page.locator('.tool-nav a[aria-current="page"]').textContent(), 'Memory profile');
      assert.equal(await page.locator('#memory-id-select').inputValue(), 'pool');

      const s = await summary(page);
      assert.equal(s['Memory ID'], 'pool');
      assert.equal(s['#Allocation'], pool.allocations.toLocaleString('en-US'));
      assert.equal(s['#Deallocation'], pool.deallocations.toLocaleString('en-US'));
      const fragmentation = (100 * (pool.free - pool.largest)) / pool.free;
      assert.equal(s['Fragmentation at the peak'], `${fragmentation.toFixed(1)}%`);

      // Hovering the timeline shows the allocation or free behind the point.
      const plot = page.locator('.memory-timeline .u-over');
      await plot.waitFor();
      const box = await plot.boundingBox();
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
      const card = page.locator('[data-testid="memory-event-card"]');
      await card.waitFor({ state: 'visible' });
      const text = await card.textContent();
      assert.match(text, /Event(allocation|deallocation)/);
      assert.match(text, /Memory in use\d/);
      assert.match(text, /Oplayer\d\/dense|Oploss/);
      await page.screenshot({ path: path.join(screenshotDir, 'memory_profile.png'), fullPage: true });

      // The breakdown lists what was alive at the peak, largest first, and filters by op.
      const ops = await breakdownOps(page);
      assert.ok(ops.length > 3, ops.join('\n'));
      assert.ok(ops.some((op) => op.endsWith('/kernel')), ops.join('\n'));
      await page.fill('input[aria-label="Filter Memory breakdown"]', 'adam_m');
      const filtered = await breakdownOps(page);
      assert.ok(filtered.length > 0 && filtered.every((op) => op.includes('adam_m')), filtered.join('\n'));
    });
  });

  test('switches between the memories of a run and keeps the choice in the URL', { skip: !haveTensorFlow && 'no TensorFlow test data' }, async () => {
    await visit('#run=tensorflow&tool=memory_profile', async (page) => {
      assert.deepEqual(await page.locator('#memory-id-select option').allTextContents(), [
        'GPU_6_bfc',
        'GPU_4_bfc',
        'GPU_1_bfc',
        'gpu_host_bfc',
      ]);
      await page.selectOption('#memory-id-select', 'gpu_host_bfc');
      await page.waitForFunction(() => /memory_id=gpu_host_bfc/.test(window.location.hash));
      await page.waitForFunction(
        () => document.querySelector('.page[data-ready="true"] [data-testid="memory-summary"] dd')?.textContent === 'gpu_host_bfc',
      );
      const s = await summary(page);
      assert.equal(s['Memory ID'], 'gpu_host_bfc');
      assert.equal(s['#Allocation'], '318');
      assert.equal(s['#Deallocation'], '218');
      await page.screenshot({ path: path.join(screenshotDir, 'tensorflow_memory_profile.png'), fullPage: true });
    });
  });

  test('the peak links to the allocation that reached it', async () => {
    await visit('#run=pool_run&tool=memory_profile', async (page) => {
      const data = await page.evaluate(async () => (await fetch('/api/data?run=pool_run&host=&tool=memory_profile')).json());
      const peak = data.memory_ids[0].summary;
      // The timeline's point at the peak: the allocation the link must select.
      const atPeak = data.memory_ids[0].timeline.filter((p) => Math.abs(p.time_ms - peak.peak_time_ms) < 1e-6 && p.event === 'allocation');
      assert.ok(atPeak.length > 0, 'an allocation at the peak');
      await page.locator('a.peak-link').click();
      await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 30_000 });
      await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-found-event'));
      const event = Number(await page.locator('.trace-viewer').getAttribute('data-found-event'));
      const details = await page.evaluate(async (e) => (await fetch(`/api/trace/event?run=pool_run&host=&event=${e}`)).json(), event);
      assert.equal(details.name, 'MemoryAllocation');
      await page.waitForSelector('.trace-details-name');
      await page.screenshot({ path: path.join(screenshotDir, 'memory_peak_link.png') });
    });
  });

  test('exports the breakdown as CSV', async () => {
    await visit('#run=pool_run&tool=memory_profile', async (page) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
      const csv = fs.readFileSync(await download.path(), 'utf8').split('\n');
      assert.equal(csv[0], 'memory_id,op,allocation_bytes,requested_bytes,occurrences,region_type,data_type,shape');
      assert.ok(csv.slice(1).some((line) => line.startsWith('pool,')), csv.join('\n'));
    });
  });
});
