// Many ranks at a glance beyond the GPU pages, and a run's tools as its device allows, on
// profiles from other projects (../shared/testdata/wild): the overview, the input pipeline and
// op stats of a two-rank NCCL job start with one row per rank (named by its recorded rank), its
// bar on one scale across ranks, each rank opening its own trace; a TPU run lists the tools
// without data once at the end, folded. Screenshots at 1280 and 1600 px go to the build tree
// (tests/server/screenshots/wild_ranks_*.png). Run by ctest as ui_wild_ranks_tables_browser_test;
// skips when the shared test data is absent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, skipUnlessRunnable, useServedFixture, visit as visitPage, wildFilesOrSkip, logdirOfCopies } from './harness.mjs';

skipUnlessRunnable();

const files = wildFilesOrSkip({
  rank0: ['hta', 'trace_filter__sampled_rank-0.json.gz'],
  rank1: ['hta', 'trace_filter__sampled_rank-1.json.gz'],
  tpu: ['xprof', 'xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb'],
});

const screenshotDir = screenshotDirectory();
const WIDTHS = [1280, 1600];

const served = useServedFixture(() =>
  logdirOfCopies('mlprof-wild-ranks-', [
    ['two_ranks', 'rank0', files.rank0],
    ['two_ranks', 'rank1', files.rank1],
    ['tpu', 'host0', files.tpu, '.xplane.pb'],
  ]),
);

const visit = (hash, check, name, width) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name, width },
    check,
  );
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });
const api = (page, href) => page.evaluate(async (u) => (await fetch(u)).json(), href);

// What each page's rank table shows of its JSON's rank row: the bar's total.
const PAGES = [
  { tool: 'overview_page', total: (r) => Object.values(r.breakdown_ms).reduce((s, v) => s + v, 0) },
  { tool: 'input_pipeline_analyzer', total: (r) => r.step_ms },
  { tool: 'framework_op_stats', total: (r) => r.host_self_time_ms + r.device_self_time_ms },
];

describe('every rank at a glance', () => {
  for (const { tool, total } of PAGES)
    test(`${tool} of two NCCL ranks starts with one row per rank, on one scale`, async () => {
      for (const width of WIDTHS)
        await visit(`#run=two_ranks&tool=${tool}`, async (page) => {
          await ready(page);
          const data = await api(page, `/api/data?run=two_ranks&host=&tool=${tool}`);
          assert.equal(data.ranks.length, 2);
          const glance = page.locator('[data-testid="ranks-glance"]');
          assert.equal(await glance.count(), 1);
          // Named by the rank the trace records (distributedInfo.rank), not the file.
          const ranks = (await glance.locator('tbody tr td:first-child').allTextContents()).map((r) => r.trim());
          assert.deepEqual(ranks, data.ranks.map((r) => r.host));
          assert.deepEqual(ranks, ['rank 0', 'rank 1']);
          // The table comes before the page's other panels (after the verdict, where there is one).
          const first = await page.evaluate(() => [...document.querySelectorAll('.page section.panel')][0]?.dataset.testid);
          assert.equal(first, 'ranks-glance');
          const bars = await glance.locator('.rank-bar').evaluateAll((els) =>
            els.map((el) => ({ total: Number(el.dataset.total), scale: Number(el.dataset.scale), filled: [...el.children].reduce((s, c) => s + c.getBoundingClientRect().width, 0), width: el.getBoundingClientRect().width })),
          );
          const scale = Math.max(...data.ranks.map(total));
          for (const [i, b] of bars.entries()) {
            assert.ok(Math.abs(b.total - total(data.ranks[i])) < 1e-6 * scale, `${tool}: rank ${i}'s bar totals ${b.total}, its JSON ${total(data.ranks[i])}`);
            assert.ok(Math.abs(b.scale - scale) < 1e-6 * scale, 'one scale');
            assert.ok(Math.abs(b.filled / b.width - b.total / scale) < 0.02, `${tool}: a bar fills ${b.filled} of ${b.width} px for ${b.total} of ${scale}`);
          }
          const o = await page.evaluate(() => [...document.querySelectorAll('.ranks-glance .table-scroll')].map((el) => el.scrollWidth - el.clientWidth));
          for (const extra of o) assert.ok(extra <= 1, `${tool} at ${width} px: the rank table is ${extra} px wider than its box`);
        }, `wild_ranks_${tool}_${width}`, width);
    });

  for (const { tool } of PAGES)
    test(`${tool}: a rank opens its own trace, the run's other rank still listed`, async () => {
      await visit(`#run=two_ranks&tool=${tool}`, async (page) => {
        await ready(page);
        // Each row names the host its trace is read as: the files rank0 and rank1 of the run.
        const data = await api(page, `/api/data?run=two_ranks&host=&tool=${tool}`);
        assert.deepEqual(data.ranks.map((r) => r.file), ['rank0', 'rank1']);
        const links = page.locator('[data-testid="ranks-glance"] tbody tr td:first-child a.row-link');
        assert.equal(await links.count(), 2, `${tool}: every rank links to its trace`);
        await links.nth(1).click();
        await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
        const state = Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
        assert.equal(state.host, 'rank1');
        // Filtering: the host picker still offers the whole run and both ranks.
        const options = await page.locator('#host-select option').allTextContents();
        assert.deepEqual(options, ['All hosts', 'rank0', 'rank1']);
      });
    });
});

describe("a run's tools as its device allows", () => {
  test('a TPU run lists its tools with data first, those without once at the end, folded', async () => {
    for (const width of WIDTHS)
      await visit('#run=tpu&tool=overview_page', async (page) => {
        await ready(page);
        const tools = await api(page, '/api/runs/tpu/tools?host=');
        const without = tools.tools.filter((t) => !t.available).map((t) => t.name);
        assert.ok(without.includes('kernel_stats'), 'kernel stats has no data on a TPU');
        // Above the fold: only tools with data.
        const shown = await page.locator('.tool-nav > a').evaluateAll((els) => els.map((el) => [el.dataset.tool, el.classList.contains('no-data')]));
        assert.deepEqual(shown.map(([, noData]) => noData).filter(Boolean), []);
        assert.deepEqual(shown.map(([name]) => name), tools.tools.filter((t) => t.available).map((t) => t.name));
        const fold = page.locator('[data-testid="tools-without-data"]');
        assert.equal(await fold.getAttribute('open'), null, 'folded');
        assert.equal((await fold.locator('summary').textContent()).trim(), `${without.length} tools without data for this run`);
        assert.deepEqual(await fold.locator('a.no-data').evaluateAll((els) => els.map((el) => el.dataset.tool)), without);
        await fold.locator('summary').click();
        assert.match(await fold.locator('a[data-tool="kernel_stats"]').getAttribute('title'), /^No data: /);
      }, `wild_ranks_tpu_sidebar_${width}`, width);
  });
});
