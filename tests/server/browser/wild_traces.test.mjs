// The web UI on profiles from other projects (../shared/testdata/wild): PyTorch 2.x on an H100
// and a B200, two ranks of one NCCL job, and param's linear model. Tables that fit a 1280 px
// window, names shortened where they differ, rows that open the trace viewer at their moment,
// and a profile without steps that opens on its device activity. Screenshots at 1280 and
// 1600 px go to the build tree (tests/server/screenshots/wild_*.png). Run by ctest as
// ui_wild_traces_browser_test; skips when the shared test data is absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, skipUnlessRunnable, SKIP, useServedFixture, visit as visitPage } from './harness.mjs';

skipUnlessRunnable();

const wild = path.join(process.env.MLPROF_TESTDATA ?? '', 'wild');
const files = {
  h100: path.join(wild, 'tracelens', 'kineto_h100', 'tracelens__traces_h100_facebook_timesformer-base-finetuned-k400__1016002.json.gz'),
  b200: path.join(wild, 'tracelens', 'kineto_b200', 'tracelens__traces_b200_eager_trace.json.gz'),
  rank0: path.join(wild, 'hta', 'trace_filter__sampled_rank-0.json.gz'),
  rank1: path.join(wild, 'hta', 'trace_filter__sampled_rank-1.json.gz'),
  linear: path.join(wild, 'param', 'param__et_replay_tests_inputs_linear_kineto.json.gz'),
};
const missing = Object.values(files).filter((f) => !fs.existsSync(f));
if (missing.length) {
  console.log(`SKIP wild-trace browser tests: no ${missing.join(', ')} (the shared test data is not beside the project)`);
  process.exit(SKIP);
}

const screenshotDir = screenshotDirectory();
const WIDTHS = [1280, 1600];

function writeLogdir() {
  const logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-wild-ui-'));
  const copy = (run, host, file) => {
    const dir = path.join(logdir, 'plugins', 'profile', run);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, `${host}.pt.trace.json.gz`));
  };
  copy('h100', 'gpu0', files.h100);
  copy('b200', 'rank0', files.b200);
  copy('two_ranks', 'rank0', files.rank0);
  copy('two_ranks', 'rank1', files.rank1);
  copy('linear', 'gpu0', files.linear);
  return logdir;
}

const served = useServedFixture(writeLogdir);

const visit = (hash, check, name, width) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name, width },
    check,
  );
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });

// How much wider than its box each table is, and the page than the window.
const overflow = (page) =>
  page.evaluate(() => ({
    tables: [...document.querySelectorAll('.table-scroll')].map((el) => el.scrollWidth - el.clientWidth),
    page: document.documentElement.scrollWidth - window.innerWidth,
  }));

describe('tables that fit', () => {
  test('kernel stats, op stats and the pod viewer show their default columns without a sideways scroll', async () => {
    for (const width of WIDTHS) {
      for (const [hash, name] of [
        ['#run=h100&tool=kernel_stats', 'h100_kernel_stats'],
        ['#run=h100&tool=framework_op_stats', 'h100_framework_op_stats'],
        ['#run=two_ranks&tool=pod_viewer', 'two_ranks_pod_viewer'],
      ])
        await visit(hash, async (page) => {
          await ready(page);
          const o = await overflow(page);
          assert.ok(o.tables.length > 0);
          for (const extra of o.tables) assert.ok(extra <= 1, `${name} at ${width} px: a table ${extra} px wider than its box`);
          assert.ok(o.page <= 0, `${name} at ${width} px: the page is ${o.page} px wider than the window`);
        }, `wild_${name}_${width}`, width);
    }
  });

  test('kernel names shortened where they differ, whole on hover; hidden columns come back from the menu', async () => {
    await visit('#run=h100&tool=kernel_stats', async (page) => {
      await ready(page);
      const cells = await page.locator('table[aria-label="Kernels"] tbody td.name.short').evaluateAll((tds) =>
        tds.map((td) => ({ text: td.textContent, title: td.title, clipped: td.scrollWidth > td.clientWidth + 1 })),
      );
      assert.ok(cells.length >= 20, `${cells.length} kernel cells`);
      const byText = new Map();
      for (const c of cells) {
        assert.ok(c.text.length <= 38, `"${c.text}" is ${c.text.length} characters`);
        assert.ok(c.title.length >= c.text.length - 1, 'the whole name on hover');
        assert.ok(!c.clipped, `"${c.text}" is cut by its cell`);
        const other = byText.get(c.text);
        assert.ok(!other || other === c.title, `"${c.text}" stands for both\n${other}\nand\n${c.title}`);
        byText.set(c.text, c.title);
      }
      // The H100's softmax kernel (TraceLens's kernel summary of this trace names it whole).
      assert.ok(cells.some((c) => c.text.endsWith('cunn_SoftMaxForward') && c.title.startsWith('void at::native::')));
      const heads = () => page.locator('table[aria-label="Kernels"] thead th').allTextContents();
      assert.ok(!(await heads()).includes('Occupancy'));
      await page.click('.table-columns summary');
      await page.locator('.table-columns input[data-column="occupancy_pct"]').check();
      assert.ok((await heads()).includes('Occupancy'));
    }, 'wild_h100_kernel_stats_columns', 1280);
  });

  test('a recommendation shows a long kernel name short, the whole name on hover', async () => {
    await visit('#run=linear&tool=overview_page', async (page) => {
      await ready(page);
      const names = await page.locator('.recommendations .short-name').evaluateAll((els) => els.map((e) => ({ text: e.textContent, title: e.title })));
      const kernel = names.find((n) => n.title.startsWith('void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>'));
      assert.ok(kernel, JSON.stringify(names));
      assert.equal(kernel.title, 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)');
      assert.equal(kernel.text, 'at::native::vectorized_elementwise_kernel');
    }, 'wild_linear_overview_1280', 1280);
  });
});
