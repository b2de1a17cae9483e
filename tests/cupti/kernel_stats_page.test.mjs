// The kernel stats page in a real headless Chromium, over PyTorch's A100 trace (the shared test
// data): the summary's Tensor Core share and advice, the top kernel, filtering, and no GPU tool
// for a CPU-only run. Run by ctest as ui_kernel_stats_browser_test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  launchBrowser,
  screenshotDirectory,
  skipUnlessRunnable,
  startServer,
  visit as harnessVisit,
} from '../server/browser/harness.mjs';

skipUnlessRunnable();

const testdata = process.env.MLPROF_TESTDATA ?? '';
const a100 = path.join(testdata, 'pytorch', 'critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz');
const cpuOnly = path.join(testdata, 'pytorch', 'cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz');
const haveData = fs.existsSync(a100) && fs.existsSync(cpuOnly);
const screenshotDir = screenshotDirectory();

let logdir;
let server;
let browser;

before(async () => {
  if (!haveData) return;
  logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-kernel-stats-ui-'));
  for (const [run, file] of [['a100', a100], ['cpu', cpuOnly]]) {
    const dir = path.join(logdir, 'plugins', 'profile', run);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, 'rank0.pt.trace.json.gz'));
  }
  server = await startServer(logdir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (server) assert.equal(await server.stop(), 0, 'mlprof serve exits 0 on SIGTERM');
  if (logdir) fs.rmSync(logdir, { recursive: true, force: true });
});

// One page of the served run, through the harness' visit (no errors, nothing leaves 127.0.0.1).
const visit = (hash, check) =>
  harnessVisit(
    {
      context: browser.context,
      url: `${server.url}${hash}`,
      ready: (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 15_000 }),
      screenshotDir,
    },
    check,
  );

const kernelCells = (page, column) =>
  page.locator('table[aria-label="Kernels"] tbody tr').evaluateAll(
    // The cell's content, without the launch shape a repeated kernel name says under it.
    (trs, c) => trs.map((tr) => tr.querySelectorAll('td')[c].firstChild?.textContent ?? ''),
    column,
  );

describe('kernel stats', { skip: !haveData && 'no PyTorch test data (../shared/testdata)' }, () => {
  test('shows the Tensor Core summary, its advice and the kernels by total time', async () => {
    await visit('#run=a100&tool=kernel_stats', async (page) => {
      assert.equal(await page.locator('.tool-nav a[aria-current="page"]').textContent(), 'Kernel stats');
      assert.equal(await page.locator('[data-testid="tensor-core-pct"]').textContent(), '16.8%');
      assert.match(await page.locator('.notice').first().textContent(), /^58\.4% of kernel time is in ops that could use Tensor Cores/);
      const kernels = await kernelCells(page, 1);
      assert.equal(kernels.length, 33);
      assert.equal(kernels[0], 'ampere_sgemm_32x32_sliced1x4_tn');
      assert.deepEqual((await kernelCells(page, 2)).slice(0, 1), ['aten::addmm']);
      await page.screenshot({ path: path.join(screenshotDir, 'kernel_stats.png'), fullPage: true });

      // Filtering by op keeps the convolution kernels only, the Tensor Core one among them.
      await page.fill('input[aria-label="Filter Kernels"]', 'cudnn_convolution');
      const ops = await kernelCells(page, 2);
      assert.ok(ops.length > 0 && ops.every((op) => op === 'aten::cudnn_convolution'), ops.join('\n'));
      const tensorCores = (await page.locator('table[aria-label="Kernels"] thead th').allTextContents()).findIndex((t) => t.startsWith('Tensor Cores'));
      assert.ok((await kernelCells(page, tensorCores)).includes('Yes'));
      assert.match(await page.locator('[data-testid="export-csv"]').getAttribute('href'), /tool=kernel_stats/);
    });
  });

  test('a CPU-only run lists the tool greyed, saying why', async () => {
    await visit('#run=cpu', async (page) => {
      const tools = await page.locator('.tool-nav a:not(.no-data)').allTextContents();
      assert.ok(tools.length > 0);
      assert.ok(!tools.includes('Kernel stats'), tools.join(', '));
      const greyed = page.locator('.tool-nav a.no-data[data-tool="kernel_stats"]');
      assert.equal(await greyed.textContent(), 'Kernel stats');
      assert.match(await greyed.getAttribute('title'), /^No data: /);
    });
  });
});
