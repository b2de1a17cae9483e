// The web UI on profiles from other projects (../shared/testdata/wild): PyTorch 2.x on an H100
// and a B200, two ranks of one NCCL job, and param's linear model. Tables that fit a 1280 px
// window, names shortened where they differ, rows that open the trace viewer at their moment,
// and a profile without steps that opens on its device activity. Screenshots at 1280 and
// 1600 px go to the build tree (tests/server/screenshots/wild_*.png). Run by ctest as
// ui_wild_traces_browser_test; skips when the shared test data is absent.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, skipUnlessRunnable, useServedFixture, visit as visitPage, wildFilesOrSkip, logdirOfCopies } from './harness.mjs';

skipUnlessRunnable();

const files = wildFilesOrSkip({
  h100: ['tracelens', 'kineto_h100', 'tracelens__traces_h100_facebook_timesformer-base-finetuned-k400__1016002.json.gz'],
  b200: ['tracelens', 'kineto_b200', 'tracelens__traces_b200_eager_trace.json.gz'],
  rank0: ['hta', 'trace_filter__sampled_rank-0.json.gz'],
  rank1: ['hta', 'trace_filter__sampled_rank-1.json.gz'],
  linear: ['param', 'param__et_replay_tests_inputs_linear_kineto.json.gz'],
  // JAX's conv test on an MI300X: 7.97 s of capture, GPU work in 28 ms of it, six empty GPUs.
  mi300x: ['tracelens', 'xplane', 'tracelens__traces_mi300_jax_conv_minimal_legacy_chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb'],
});

const screenshotDir = screenshotDirectory();
const WIDTHS = [1280, 1600];

function writeLogdir() {
  return logdirOfCopies('mlprof-wild-ui-', [
    ['h100', 'gpu0', files.h100],
    ['b200', 'rank0', files.b200],
    ['two_ranks', 'rank0', files.rank0],
    ['two_ranks', 'rank1', files.rank1],
    ['linear', 'gpu0', files.linear],
    ['mi300x', 'host0', files.mi300x, '.xplane.pb'],
  ]);
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
        tds.map((td) => ({
          text: td.querySelector('a.row-link').textContent,
          title: td.title,
          launch: td.querySelector('.cell-aside')?.textContent,
          clipped: td.scrollWidth > td.clientWidth + 1,
        })),
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
      // A kernel launched with two grids (cutlass's 128x128 bf16 GEMM: 200×4×96 and 25×1×96
      // blocks, as the trace's kernel events say) has two rows, each saying its launch.
      const gemm = cells.filter((c) => c.title.includes('cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1'));
      assert.deepEqual(gemm.map((c) => c.launch).sort(), ['grid 200×4×96 · block 128×1×1', 'grid 25×1×96 · block 128×1×1']);
      assert.ok(cells.filter((c) => cells.filter((d) => d.title === c.title).length === 1).every((c) => c.launch === undefined), 'a kernel of one row says no launch');
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

const viewerReady = async (page) => {
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-rows'));
  await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
};
const viewer = async (page, name) => Number(await page.locator('.trace-viewer').getAttribute(`data-${name}`));

// The trace viewer a row's link opened: the selected event's details (from /api/trace/event),
// in the time range shown and in the scroller's sight.
async function openedAt(page) {
  await viewerReady(page);
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-found-event'));
  await page.waitForSelector('.trace-details-name');
  const event = await viewer(page, 'found-event');
  const state = Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
  const details = await page.evaluate(
    async ([run, host, e]) => (await fetch(`/api/trace/event?run=${encodeURIComponent(run)}&host=${encodeURIComponent(host)}&event=${e}`)).json(),
    [state.run, state.host ?? '', event],
  );
  assert.equal(await page.locator('.trace-details-name').getAttribute('title'), details.name, 'the event is selected');
  assert.ok((await page.locator('.trace-details-name').textContent()).length <= 100, 'its name in the heading short');
  const [start, end] = [await viewer(page, 'start-ps'), await viewer(page, 'end-ps')];
  assert.ok(start <= details.start_ps && details.start_ps + details.duration_ps <= end, `the event (${details.start_ps}) lies in the view ${start}..${end}`);
  const y = await viewer(page, 'found-y');
  const scroller = await page.locator('.trace-scroller').evaluate((el) => ({ top: el.scrollTop, height: el.clientHeight }));
  assert.ok(y >= scroller.top && y <= scroller.top + scroller.height, `its row (y ${y}) is in sight (${scroller.top}..${scroller.top + scroller.height})`);
  await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
  // The toolbar keeps to one line, however long the visible range reads (loading included).
  await page.locator('.trace-viewer').evaluate((el) => el.setAttribute('data-loading', 'true'));
  const toolbar = await page.locator('.trace-toolbar button').evaluateAll((bs) => new Set(bs.map((b) => Math.round(b.getBoundingClientRect().top))).size);
  assert.equal(toolbar, 1, 'the toolbar\'s buttons on one line');
  await page.locator('.trace-viewer').evaluate((el) => el.removeAttribute('data-loading'));
  return { state, details, start, end };
}

// Every event of the trace named exactly `name`, through the search endpoint (not the one the
// links use).
const namedExactly = (page, state, name) =>
  page.evaluate(
    async ([run, host, q]) => {
      const r = await (await fetch(`/api/trace/search?run=${encodeURIComponent(run)}&host=${encodeURIComponent(host)}&q=${encodeURIComponent(q)}&limit=100000`)).json();
      return r.events.filter((e) => e.name === q);
    },
    [state.run, state.host ?? '', name],
  );

describe('links into the trace', () => {
  test('a kernel stats row opens the trace at the longest launch of its kernel', async () => {
    for (const width of WIDTHS)
      await visit('#run=h100&tool=kernel_stats', async (page) => {
        await ready(page);
        const cell = page.locator('table[aria-label="Kernels"] tbody tr:first-child td.name').first();
        const kernel = await cell.getAttribute('title');
        await cell.locator('a.row-link').click();
        const { state, details } = await openedAt(page);
        assert.equal(state.host, 'gpu0');
        assert.equal(details.name, kernel);
        const all = await namedExactly(page, state, kernel);
        assert.ok(all.length > 1, `${all.length} launches`);
        assert.equal(details.duration_ps, Math.max(...all.map((e) => e.duration_ps)), 'the longest');
      }, `wild_h100_kernel_stats_link_${width}`, width);
  });

  test('a link unfolds the folded section and track that hide its event', async () => {
    // Every section and the GPU's tracks folded, as a user may have left them; the link's event
    // must still come into sight, selected.
    await visit('#run=h100&tool=kernel_stats', async (page) => {
      await ready(page);
      const kernel = await page.locator('table[aria-label="Kernels"] tbody tr:first-child td.name').first().getAttribute('title');
      const folded = ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8'].join(',');
      await page.goto(`${served.server.url}#run=h100&host=gpu0&tool=trace_viewer&collapsed=${folded}&find=${encodeURIComponent(kernel)}`);
      const { state, details } = await openedAt(page);
      assert.equal(details.name, kernel);
      const left = (state.collapsed ?? '').split(',').filter(Boolean);
      assert.ok(left.length < 9, `a fold was opened: ${state.collapsed}`);
    }, 'wild_h100_link_unfolds_1280', 1280);
  });

  test('an op stats row opens the trace on its longest host op, its thread scrolled into sight', async () => {
    await visit('#run=h100&tool=framework_op_stats', async (page) => {
      await ready(page);
      await page.locator('table[aria-label="Framework ops"] a.row-link', { hasText: /^aten::addmm$/ }).first().click();
      const { details } = await openedAt(page);
      assert.equal(details.name, 'aten::addmm');
    }, 'wild_h100_framework_op_stats_link_1280', 1280);
  });

  test('an idle gap opens the trace at the work that ended it, the gap in view', async () => {
    await visit('#run=h100&tool=gpu_idle_time', async (page) => {
      await ready(page);
      const data = await page.evaluate(async () => (await fetch('/api/data?run=h100&host=gpu0&tool=gpu_idle_time')).json());
      const gap = data.hosts[0].gpu_idle_time.largest_gaps[0];
      await page.locator('table[aria-label="Longest gaps"] tbody tr:first-child a.row-link').click();
      const { details, start } = await openedAt(page);
      assert.equal(details.name, gap.next);
      // The work starts where the gap ends (the tool rounds to the µs, as HTA does).
      const gapEndPs = (gap.begin_ms + gap.length_us / 1000) * 1e9;
      assert.ok(Math.abs(details.start_ps - gapEndPs) <= 1e6, `the work starts at ${details.start_ps}, the gap ends at ${gapEndPs}`);
      assert.ok(start <= gap.begin_ms * 1e9, 'the gap\'s start in view');
    }, 'wild_h100_gpu_idle_time_link_1280', 1280);
  });

  test('a launch delay opens the trace at that launch', async () => {
    await visit('#run=h100&tool=kernel_launch_stats', async (page) => {
      await ready(page);
      const data = await page.evaluate(async () => (await fetch('/api/data?run=h100&host=gpu0&tool=kernel_launch_stats')).json());
      const delay = data.hosts[0].kernel_launch_stats.longest_delays[0];
      await page.locator('table[aria-label="Longest launch delays"] tbody tr:first-child a.row-link').click();
      const { details } = await openedAt(page);
      assert.equal(details.name, delay.name);
      assert.ok(Math.abs(details.start_ps - delay.begin_ms * 1e9) <= 1e6, `${details.start_ps} vs ${delay.begin_ms} ms`);
    }, 'wild_h100_kernel_launch_stats_link_1280', 1280);
  });

  test('a stragglers step opens that rank\'s trace on that step', async () => {
    await visit('#run=two_ranks&tool=stragglers', async (page) => {
      await ready(page);
      const link = page.locator('table[aria-label="Steps"] tbody tr:first-child a.row-link').last();
      const rank = await link.textContent();
      // A rank is named from its trace ("rank 1"); its trace opens by the file it came from.
      const data = await page.evaluate(async () => (await fetch('/api/data?run=two_ranks&host=&tool=stragglers')).json());
      const host = data.ranks.find((r) => r.host === rank)?.file ?? rank;
      assert.ok(['rank0', 'rank1'].includes(host), `${rank} came from ${host}`);
      const step = Number(await page.locator('table[aria-label="Steps"] tbody tr:first-child td').first().textContent());
      await link.click();
      await viewerReady(page);
      const state = Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
      assert.equal(state.host, host);
      const steps = await page.evaluate(
        async (h) => (await (await fetch(`/api/trace?run=two_ranks&host=${h}&width_px=1&steps=1`)).json()).steps,
        host,
      );
      const s = steps.find((x) => x[2] === step);
      assert.ok(s, `step ${step} of ${JSON.stringify(steps)}`);
      const [start, end] = [await viewer(page, 'start-ps'), await viewer(page, 'end-ps')];
      assert.ok(start <= s[0] && end >= s[0] + s[1] && end - start < 1.1 * s[1], `view ${start}..${end}, step ${s[0]}+${s[1]}`);
    }, 'wild_two_ranks_stragglers_link_1280', 1280);
  });
});

describe('where the trace viewer opens', () => {
  // Its steps are found from the program's repeated jit calls (no step markers): the view is
  // theirs, inside the GPU work, never the 7.97 s of capture.
  test('a profile whose GPU work is a sliver of the capture opens on that work; its empty GPUs are listed once, at the end, folded', async () => {
    for (const width of WIDTHS)
      await visit('#run=mi300x&tool=trace_viewer', async (page) => {
        await viewerReady(page);
        const first = await page.evaluate(async () => (await fetch('/api/trace?run=mi300x&host=host0&width_px=1')).json());
        const gpu0 = await page.evaluate(
          async (end) => (await fetch(`/api/trace?run=mi300x&host=host0&start_ps=0&end_ps=${end}&width_px=4000`)).json(),
          first.end_ps,
        );
        const busy = gpu0.sections.filter((s) => s.kind === 'device' && !s.empty);
        const boxes = busy.flatMap((s) => s.tracks.flatMap((t) => t.rows.flatMap((r) => [...r.events, ...r.merged])));
        const workStart = Math.min(...boxes.map((b) => b[0]));
        const workEnd = Math.max(...boxes.map((b) => b[0] + b[1]));
        const [start, end] = [await viewer(page, 'start-ps'), await viewer(page, 'end-ps')];
        const slack = 0.05 * (workEnd - workStart) + first.end_ps / 4000; // a merged box is a pixel of the whole
        assert.ok(start >= workStart - slack && end <= workEnd + slack && end - start >= 0.2 * (workEnd - workStart), `view ${start}..${end}, GPU work ${workStart}..${workEnd}`);
        assert.ok(end - start < 0.01 * first.end_ps, `the view is ${(end - start) / 1e9} ms of ${first.end_ps / 1e9} ms`);
        // The busy GPUs first; the six empty ones in one folded group at the end.
        const labels = await page.locator('.trace-section-label').allTextContents();
        assert.deepEqual(labels.slice(0, busy.length), busy.map((s) => s.name).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
        assert.equal(labels.at(-1), 'Devices with no events (6)');
        assert.ok(!labels.some((l) => l.endsWith('(no events)')), 'folded');
        await page.screenshot({ path: path.join(screenshotDir, `wild_mi300x_trace_viewer_${width}.png`) });
        await page.locator('.trace-section-label[data-key="empty"]').click();
        await page.waitForSelector('.trace-section-label[data-key="empty"][aria-expanded="true"]');
        const open = await page.locator('.trace-section-label').allTextContents();
        assert.equal(open.filter((l) => l.endsWith('(no events)')).length, 6);
        // The click scrolled the host threads above into sight: drawn once their events come
        // (hatched as loading until then).
        await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
        assert.equal(await viewer(page, 'tracks-awaited'), 0);
      }, `wild_mi300x_trace_viewer_unfolded_${width}`, width);
  });


  test('a profile without steps that is all GPU work opens on it; the tooltip stays in the window', async () => {
    for (const width of WIDTHS)
      await visit('#run=b200&tool=trace_viewer', async (page) => {
        await viewerReady(page);
        assert.equal(await viewer(page, 'steps'), 0);
        const first = await page.evaluate(async () => (await fetch('/api/trace?run=b200&host=rank0&width_px=1&steps=1')).json());
        // Where the devices worked, from the GPU's own tracks (a second reply, not the one the viewer read).
        const gpu = await page.evaluate(async (end) => (await fetch(`/api/trace?run=b200&host=rank0&start_ps=0&end_ps=${end}&width_px=4000`)).json(), first.end_ps);
        const boxes = gpu.sections.filter((s) => s.kind === 'device').flatMap((s) => s.tracks.flatMap((t) => t.rows.flatMap((r) => [...r.events, ...r.merged])));
        assert.ok(boxes.length > 0, 'the B200 has device work');
        const workStart = Math.min(...boxes.map((b) => b[0]));
        const workEnd = Math.max(...boxes.map((b) => b[0] + b[1]));
        const [start, end] = [await viewer(page, 'start-ps'), await viewer(page, 'end-ps')];
        const slack = 0.05 * (workEnd - workStart);
        assert.ok(Math.abs(start - workStart) <= slack && Math.abs(end - workEnd) <= slack, `view ${start}..${end}, device work ${workStart}..${workEnd}`);
        // Hovering the last event at the window's right edge: its tooltip stays inside the window.
        const canvas = await page.locator('.trace-canvas').boundingBox();
        // The GPU's first track (its counters are folded into the row above it).
        const track = await page.locator('.trace-track-label:not(.trace-counter-group)').first().boundingBox();
        const y = track.y - canvas.y + 10;
        let shown = false;
        for (let x = canvas.width - 2; x > canvas.width - 200 && !shown; x -= 6) {
          await page.mouse.move(canvas.x + x, canvas.y + y);
          shown = await page.locator('.trace-tooltip').isVisible();
        }
        assert.ok(shown, 'a tooltip near the right edge');
        const tip = await page.locator('.trace-tooltip').boundingBox();
        const window = await page.evaluate(() => ({ width: innerWidth, scroll: document.documentElement.scrollWidth }));
        assert.ok(tip.x >= 0 && tip.x + tip.width <= window.width, `the tooltip spans ${tip.x}..${tip.x + tip.width} of ${window.width}`);
        assert.ok(window.scroll <= window.width, 'the page does not widen');
      }, `wild_b200_trace_viewer_${width}`, width);
  });
});
