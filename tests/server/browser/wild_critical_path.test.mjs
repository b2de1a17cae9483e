// "What bounds the step" in the web UI on profiles from other projects (../shared/testdata/wild):
// OWLv2 on an H100 (a DataLoader without workers on the step's thread: input, as the critical
// path tests find), XProf's TPU host-offload test (5 GiB copies: copies) and two ranks of one
// job. The overview's first line names the bottleneck; the critical path page has its
// what-if table, and its ops, kernels and steps open the trace viewer there. Screenshots at 1280
// and 1600 px go to the build tree (tests/server/screenshots/wild_critical_path_*.png). Run by
// ctest as ui_wild_critical_path_browser_test; skips when the shared test data is absent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, skipUnlessRunnable, useServedFixture, visit as visitPage, wildFilesOrSkip, logdirOfCopies } from './harness.mjs';

skipUnlessRunnable();

const files = wildFilesOrSkip({
  owlv2: ['tracelens', 'kineto_h100', 'tracelens__traces_h100_google_owlv2-large-patch14-ensemble__1016001.json.gz'],
  b200: ['tracelens', 'kineto_b200', 'tracelens__traces_b200_eager_trace.json.gz'],
  tpu: ['xprof', 'xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb'],
  rank0: ['hta', 'trace_filter__sampled_rank-0.json.gz'],
  rank1: ['hta', 'trace_filter__sampled_rank-1.json.gz'],
});

const screenshotDir = screenshotDirectory();
const WIDTHS = [1280, 1600];

const served = useServedFixture(() =>
  logdirOfCopies('mlprof-wild-critical-path-', [
    ['owlv2', 'gpu0', files.owlv2],
    ['b200', 'rank0', files.b200],
    ['tpu', 'host0', files.tpu, '.xplane.pb'],
    ['two_ranks', 'rank0', files.rank0],
    ['two_ranks', 'rank1', files.rank1],
  ]),
);

const visit = (hash, check, name, width) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name, width },
    check,
  );
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });
const api = (page, query) => page.evaluate(async (q) => (await fetch(`/api/data?${q}`)).json(), query);

// How much wider than its box each table is, and the page than the window.
const overflow = (page) =>
  page.evaluate(() => ({
    tables: [...document.querySelectorAll('.table-scroll')].map((el) => ({
      extra: el.scrollWidth - el.clientWidth,
      panel: el.closest('section')?.querySelector('h2')?.textContent ?? '',
    })),
    page: document.documentElement.scrollWidth - window.innerWidth,
  }));
const fits = async (page, what) => {
  const o = await overflow(page);
  for (const { extra, panel } of o.tables) assert.ok(extra <= 1, `${what}: the table of "${panel}" is ${extra} px wider than its box`);
  assert.ok(o.page <= 0, `${what}: the page is ${o.page} px wider than the window`);
};

// The trace viewer a link opened: the event it found selected, of that name.
async function openedOn(page, name) {
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-found-event'), null, { timeout: 60_000 });
  await page.waitForSelector('.trace-details-name');
  assert.equal(await page.locator('.trace-details-name').getAttribute('title'), name, 'the event is selected');
  // The tracks around it are drawn (the screenshot shows the moment, not a page still fetching).
  await page.waitForFunction(() => !document.querySelector('.trace-viewer')?.hasAttribute('data-loading'), null, { timeout: 60_000 });
  return Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
}

// Which run reads which bottleneck, as the critical path tests find it on the same files.
// vLLM decode on a B200 launches kernel after kernel from Python while the GPU idles: host or
// kernel launch.
const CASES = [
  { run: 'owlv2', kind: /^input$/, words: /bound by input/ },
  { run: 'b200', kind: /^(host|kernel_launch)$/, words: /bound by (host compute|kernel launch)/ },
  { run: 'tpu', kind: /^copies$/, words: /bound by copies/ },
];

describe('the overview says what bounds the step first', () => {
  for (const c of CASES)
    test(`${c.run}: the first line names ${c.kind.source}, above the input-bound verdict; the path and its what-ifs below`, async () => {
      for (const width of WIDTHS)
        await visit(`#run=${c.run}&tool=overview_page`, async (page) => {
          await ready(page);
          const headline = page.locator('[data-testid="bottleneck"]');
          assert.match(await headline.textContent(), c.words);
          assert.match(await page.locator('.notice.bottleneck').getAttribute('data-kind'), c.kind);
          // First after the page's header; the verdict stays, in its own banner, after it.
          const order = await page.evaluate(() => {
            const page = document.querySelector('.page');
            const parts = [...page.querySelectorAll(':scope > *, :scope > * > .notice')].filter((el) => el.matches('.page-header, .notice'));
            return parts.map((el) => (el.matches('.page-header') ? 'header' : el.classList.contains('bottleneck') ? 'bottleneck' : el.classList.contains('verdict') ? 'verdict' : 'other'));
          });
          assert.deepEqual(order.slice(0, 3), ['header', 'bottleneck', 'verdict'], order.join(','));
          const rows = await page.locator('table[aria-label="What-if"] tbody tr').count();
          assert.ok(rows >= 1 && rows <= 5, `${rows} what-if rows on the overview`);
          assert.ok((await page.locator('.segment-bar .segment').count()) >= 1, 'the path on one bar');
          await fits(page, `${c.run} overview at ${width} px`);
        }, `wild_critical_path_${c.run}_overview_${width}`, width);
    });

  test('the headline links to the critical path page', async () => {
    await visit('#run=owlv2&tool=overview_page', async (page) => {
      await ready(page);
      await page.locator('[data-testid="critical-path-link"]').click();
      await page.waitForSelector('.page[data-tool="critical_path"][data-ready="true"]', { timeout: 60_000 });
      assert.match(await page.locator('[data-testid="bottleneck"]').textContent(), /bound by input/);
    });
  });
});

describe('the critical path page', () => {
  for (const run of ['owlv2', 'tpu', 'two_ranks'])
    test(`${run}: the what-if table has every prediction, the largest saving first, and fits the window`, async () => {
      for (const width of WIDTHS)
        await visit(`#run=${run}&tool=critical_path`, async (page) => {
          await ready(page);
          const data = await api(page, `run=${run}&host=&tool=critical_path`);
          assert.ok(data.what_if.length > 0, 'the tool gives predictions');
          const table = page.locator('table[aria-label="What-if"]');
          assert.equal(await table.locator('tbody tr').count(), Math.min(100, data.what_if.length));
          // The first row saves most: the JSON's smallest predicted step (a kind by its label).
          const best = data.what_if.reduce((a, b) => (b.step_ms < a.step_ms ? b : a));
          const cell = table.locator('tbody tr:first-child td.name').first();
          const target = (await cell.getAttribute('title')) ?? (await cell.textContent());
          // A kind reads as the JSON's label for it ("Host compute"), a name as itself.
          const expected = data.labels?.[best.target] ?? best.target.replace(/_/g, ' ');
          assert.equal(target.toLowerCase(), expected.toLowerCase());
          if (data.prediction_note) assert.equal(await page.locator('[data-testid="prediction-note"]').textContent(), data.prediction_note);
          const steps = await page.locator('table[aria-label="Steps"] tbody tr').count();
          assert.equal(steps, Math.min(20, data.steps.length));
          const window = await page.locator('[data-testid="figure-window"]').first().textContent();
          if (data.steps.length === 1) assert.equal(window, `Window: the critical path of the one step (step ${data.steps[0].step_num})`);
          else assert.equal(window, `Window: each step's critical path, the mean over ${data.steps.length} steps${run === 'two_ranks' ? ' on 2 hosts' : ''}`);
          await fits(page, `${run} critical path at ${width} px`);
        }, `wild_critical_path_${run}_${width}`, width);
    });

  test('owlv2: the top op on the path opens the trace viewer on it, selected', async () => {
    await visit('#run=owlv2&tool=critical_path', async (page) => {
      await ready(page);
      const link = page.locator('table[aria-label="Ops on the path"] tbody tr:first-child a.row-link').first();
      const name = await page.locator('table[aria-label="Ops on the path"] tbody tr:first-child td.name').first().getAttribute('title');
      assert.ok(name.startsWith('enumerate(DataLoader)'), name);
      await link.click();
      const state = await openedOn(page, name);
      assert.equal(state.host, 'gpu0');
      assert.equal(state.find, name);
    }, 'wild_critical_path_owlv2_op_link_1280', 1280);
  });

  test('owlv2: the top kernel on the path opens the trace viewer on it, selected', async () => {
    await visit('#run=owlv2&tool=critical_path', async (page) => {
      await ready(page);
      const name = await page.locator('table[aria-label="Kernels on the path"] tbody tr:first-child td.name').first().getAttribute('title');
      assert.match(name, /SoftMaxForward/);
      await page.locator('table[aria-label="Kernels on the path"] tbody tr:first-child a.row-link').first().click();
      await openedOn(page, name);
    }, 'wild_critical_path_owlv2_kernel_link_1280', 1280);
  });

  test('tpu: the longest copy on the path opens the trace viewer on it, selected', async () => {
    await visit('#run=tpu&tool=critical_path', async (page) => {
      await ready(page);
      const name = await page.locator('table[aria-label="Kernels on the path"] tbody tr:first-child td.name').first().getAttribute('title');
      assert.match(name, /^%copy-done/);
      await page.locator('table[aria-label="Kernels on the path"] tbody tr:first-child a.row-link').first().click();
      await openedOn(page, name);
    }, 'wild_critical_path_tpu_kernel_link_1280', 1280);
  });

  test("two ranks: a step row opens that rank's trace on that step", async () => {
    await visit('#run=two_ranks&tool=critical_path', async (page) => {
      await ready(page);
      const data = await api(page, 'run=two_ranks&host=&tool=critical_path');
      assert.equal(new Set(data.steps.map((s) => s.host)).size, 2, 'steps of both ranks');
      const last = data.steps.at(-1);
      const row = page.locator('table[aria-label="Steps"] tbody tr').filter({ hasText: last.host }).filter({ has: page.locator(`a.row-link:text-is("${last.step_num}")`) });
      await row.locator('a.row-link').first().click();
      await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
      const state = Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
      assert.equal(state.host, last.host);
      assert.equal(state.step, String(last.step_num));
      await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-start-ps'));
      assert.equal(await page.locator('.trace-details').textContent().then((t) => /has no step/.test(t)), false, 'the trace has the step');
    }, 'wild_critical_path_two_ranks_step_link_1280', 1280);
  });
});
