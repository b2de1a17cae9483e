// The web UI on profiles from other projects (../shared/testdata/wild), finding the slow thing
// and reading many ranks: the trace viewer's search scoped to device tracks, its table of
// matches and "Longest"; the range summary by self time inside a nested Python stack; the
// GPU pages of a two-rank NCCL job, one row per rank on one scale; every figure's window.
// Screenshots at 1280 and 1600 px go to the build tree (tests/server/screenshots/wild_*.png).
// Run by ctest as ui_wild_find_and_ranks_browser_test; skips when the shared data is absent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, shiftDrag, skipUnlessRunnable, useServedFixture, visit as visitPage, wildFilesOrSkip, logdirOfCopies } from './harness.mjs';

skipUnlessRunnable();

const files = wildFilesOrSkip({
  h100: ['tracelens', 'kineto_h100', 'tracelens__traces_h100_facebook_timesformer-base-finetuned-k400__1016002.json.gz'],
  rank0: ['hta', 'trace_filter__sampled_rank-0.json.gz'],
  rank1: ['hta', 'trace_filter__sampled_rank-1.json.gz'],
});

const screenshotDir = screenshotDirectory();
const WIDTHS = [1280, 1600];

function writeLogdir() {
  return logdirOfCopies('mlprof-wild-find-', [
    ['h100', 'gpu0', files.h100],
    ['two_ranks', 'rank0', files.rank0],
    ['two_ranks', 'rank1', files.rank1],
  ]);
}

const served = useServedFixture(writeLogdir);

const visit = (hash, check, name, width) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name, width },
    check,
  );
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });
const viewerReady = async (page) => {
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-rows'));
  await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
};
const viewer = async (page, name) => Number(await page.locator('.trace-viewer').getAttribute(`data-${name}`));
const api = (page, href) => page.evaluate(async (u) => (await fetch(u)).json(), href);

describe('find the slow thing', () => {
  test('search on device tracks, the longest and the next longest, a table of matches that goes to each', async () => {
    for (const width of WIDTHS)
      await visit('#run=h100&host=gpu0&tool=trace_viewer', async (page) => {
        await viewerReady(page);
        // "copy" names host ops (aten::copy_) and device copies (Memcpy HtoD): the device's alone,
        // the longest first, from the whole list of matches.
        const all = await api(page, '/api/trace/search?run=h100&host=gpu0&q=copy&limit=100000');
        const device = all.events.filter((e) => e.section.startsWith('/device:'));
        assert.ok(device.length > 2 && device.length < all.total, `${device.length} of ${all.total} matches on the GPU`);
        const longest = [...device].sort((a, b) => b.duration_ps - a.duration_ps || a.start_ps - b.start_ps);
        await page.locator('.trace-search-scope').selectOption('device');
        await page.locator('.trace-search').fill('copy');
        await page.locator('.trace-search').press('Enter');
        await page.waitForSelector('[data-testid="search-results"]:not([hidden]) tbody tr');
        assert.equal(await viewer(page, 'matches'), device.length);
        const tracks = await page.locator('.trace-search-table tbody td.track').allTextContents();
        assert.ok(tracks.every((t) => t.startsWith('/device:')), `device tracks only: ${[...new Set(tracks)]}`);

        await page.getByRole('button', { name: 'Longest', exact: true }).click();
        await page.waitForFunction((e) => document.querySelector('.trace-viewer')?.getAttribute('data-selected-event') === String(e), longest[0].event);
        await page.waitForSelector('.trace-search-table th[aria-sort="descending"]');
        const durations = (await page.locator('.trace-search-table tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.durationPs))));
        assert.deepEqual(durations, longest.map((e) => e.duration_ps), 'the table lists them the longest first');
        assert.match(await page.locator('.trace-search-table th[aria-sort="descending"]').textContent(), /Duration/);
        await page.getByRole('button', { name: 'Next longest' }).click();
        await page.waitForFunction((e) => document.querySelector('.trace-viewer')?.getAttribute('data-selected-event') === String(e), longest[1].event);
        assert.equal(await page.locator('.trace-search-table tbody tr.current').getAttribute('data-event'), String(longest[1].event));

        // A row goes to its event: selected, in the time shown, its track in the scroller's sight.
        const row = page.locator('.trace-search-table tbody tr').nth(2);
        const event = Number(await row.getAttribute('data-event'));
        await row.click();
        await page.waitForFunction((e) => document.querySelector('.trace-viewer')?.getAttribute('data-selected-event') === String(e), event);
        await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
        const hit = longest[2];
        assert.equal(event, hit.event);
        const [start, end] = [await viewer(page, 'start-ps'), await viewer(page, 'end-ps')];
        assert.ok(start <= hit.start_ps && hit.start_ps + hit.duration_ps <= end, `${hit.start_ps} in ${start}..${end}`);
        const y = await viewer(page, 'found-y');
        const scroller = await page.locator('.trace-scroller').evaluate((el) => ({ top: el.scrollTop, height: el.clientHeight }));
        assert.ok(y >= scroller.top && y <= scroller.top + scroller.height, `its row (y ${y}) is in sight`);

        // By start: the table in time order.
        await page.locator('.trace-search-table th', { hasText: 'Start' }).click();
        await page.waitForSelector('.trace-search-table th[aria-sort="ascending"]');
        const starts = await page.locator('.trace-search-table tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.event)));
        assert.deepEqual(starts, [...device].sort((a, b) => a.start_ps - b.start_ps || a.event - b.event).map((e) => e.event));
        const middles = await page.locator('.trace-toolbar button, .trace-toolbar select').evaluateAll((els) => els.map((b) => { const r = b.getBoundingClientRect(); return r.top + r.height / 2; }));
        assert.ok(Math.max(...middles) - Math.min(...middles) < 8, `the toolbar keeps to one line: ${middles}`);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'the page does not widen');
      }, `wild_h100_trace_search_${width}`, width);
  });

  test('a range inside a nested Python stack sums self time: no row, and no track, exceeds the range', async () => {
    await visit('#run=h100&host=gpu0&tool=trace_viewer', async (page) => {
      await viewerReady(page);
      // The Python stacks' thread (PyTorch's python_function events): the deepest stack of the trace.
      const section = await page.locator('.trace-section-label', { hasText: /^\/host:python$/ }).boundingBox();
      const tracks = await page.locator('.trace-track-label').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()));
      const box = tracks.filter((t) => t.y > section.y).sort((a, b) => b.height - a.height)[0]; // the main thread's
      assert.ok(box.height > 200, `a deep stack: ${box.height} px`);
      const canvas = await page.locator('.trace-canvas').boundingBox();
      const y = box.y - canvas.y + Math.min(box.height - 4, 60);
      // Across the step's work (the view opens on the steps; the work is in their second half).
      await shiftDrag(page, canvas.width * 0.62, canvas.width * 0.95, y);
      await page.waitForSelector('[data-testid="range-summary"][data-tracks="1"]');
      const summary = page.locator('[data-testid="range-summary"]');
      const span = Number(await summary.getAttribute('data-span-ps'));
      const rows = await page.locator('table[aria-label="Events in the selected range"] tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({ name: tr.querySelector('td.name').title, self: Number(tr.dataset.selfPs), total: Number(tr.dataset.totalPs), line: tr.dataset.line })),
      );
      assert.ok(rows.length > 10, `${rows.length} rows`);
      assert.equal(new Set(rows.map((r) => r.line)).size, 1, 'one track');
      // The stack is nested: its frames' times inside the range, each counted whole, would sum
      // to several times the range (what the summary used to show).
      const nested = rows.reduce((s, r) => s + r.total, 0);
      assert.ok(nested > 2 * span, `nested totals ${nested} vs the range ${span}`);
      for (const r of rows) assert.ok(r.self <= span, `${r.name}: ${r.self} ps of self time in a ${span} ps range`);
      const self = rows.reduce((s, r) => s + r.self, 0);
      assert.ok(self <= span, `the track's self times sum to ${self} ps, the range is ${span} ps`);
      assert.ok(Number(await summary.getAttribute('data-busy-ps')) <= span * Number(await summary.getAttribute('data-track-count')));
      assert.match(await summary.locator('p').textContent(), /busy .* of .* \(1 track × the range\)/);
    }, 'wild_h100_range_self_time_1280', 1280);
  });
});

describe('all ranks at a glance', () => {
  test('the GPU pages of two NCCL ranks start with one row per rank on one scale, each rank\'s detail folded below', async () => {
    for (const width of WIDTHS)
      for (const tool of ['gpu_time_breakdown', 'gpu_idle_time', 'comm_compute_overlap', 'kernel_launch_stats']) {
        await visit(`#run=two_ranks&tool=${tool}`, async (page) => {
          await ready(page);
          const data = await api(page, `/api/data?run=two_ranks&host=&tool=${tool}`);
          assert.equal(data.hosts.length, 2);
          const glance = page.locator('[data-testid="ranks-glance"]');
          const ranks = await glance.locator('tbody tr td:first-child').allTextContents();
          assert.deepEqual(ranks.map((r) => r.trim()), data.hosts.map((x) => x.host));
          // Every bar on the scale of the largest: that one fills its track, the others are shorter in proportion.
          const bars = await glance.locator('.rank-bar').evaluateAll((els) =>
            els.map((el) => ({ total: Number(el.dataset.total), scale: Number(el.dataset.scale), filled: [...el.children].reduce((s, c) => s + c.getBoundingClientRect().width, 0), width: el.getBoundingClientRect().width })),
          );
          assert.equal(bars.length, 2);
          const scale = Math.max(...bars.map((b) => b.total));
          for (const b of bars) {
            assert.equal(b.scale, scale, 'one scale');
            assert.ok(Math.abs(b.filled / b.width - b.total / scale) < 0.02, `${tool}: a bar fills ${b.filled} of ${b.width} px for ${b.total} of ${scale}`);
          }
          // Each rank's detail, folded, its window beside its name.
          const details = page.locator('details.host-detail');
          assert.equal(await details.count(), 2);
          assert.deepEqual(await details.evaluateAll((els) => els.map((el) => el.open)), [false, false]);
          assert.equal(await details.first().locator('[data-testid="figure-window"]').textContent(), `Window: ${data.hosts[0].window}`);
          const o = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, tables: [...document.querySelectorAll('.table-scroll')].map((el) => el.scrollWidth - el.clientWidth) }));
          assert.ok(o.height < 1200, `${tool}: the page is ${o.height} px tall`);
          for (const extra of o.tables) assert.ok(extra <= 1, `${tool} at ${width} px: a table ${extra} px wider than its box`);
        }, `wild_two_ranks_${tool}_${width}`, width);
      }
  });

  test('communication overlap: both ranks\' bars on one scale, in the table and in the details', async () => {
    await visit('#run=two_ranks&tool=comm_compute_overlap', async (page) => {
      await ready(page);
      const data = await api(page, '/api/data?run=two_ranks&host=&tool=comm_compute_overlap');
      const comm = data.hosts.map((x) => x.comm_compute_overlap);
      const most = Math.max(...comm.map((c) => c.communication_us));
      for (const d of await page.locator('details.host-detail summary').all()) await d.click();
      // The exposed bar of each rank, as a share of its track: its exposed time over the most any rank communicated.
      const fills = await page.locator('details.host-detail .bar-list[aria-label="Communication overlap"] .bar-fill').evaluateAll((els) =>
        els.map((el) => el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width),
      );
      assert.equal(fills.length, 4);
      comm.forEach((c, i) => {
        assert.ok(Math.abs(fills[2 * i] - c.overlap_us / most) < 0.01, `rank ${i} beside computation: ${fills[2 * i]} vs ${c.overlap_us / most}`);
        assert.ok(Math.abs(fills[2 * i + 1] - c.exposed_communication_us / most) < 0.01, `rank ${i} exposed: ${fills[2 * i + 1]}`);
      });
    }, 'wild_two_ranks_comm_overlap_open_1280', 1280);
  });

  test('a range over both ranks lists a kernel per rank and says on how many ranks it ran', async () => {
    await visit('#run=two_ranks&tool=trace_viewer', async (page) => {
      await viewerReady(page);
      const canvas = await page.locator('.trace-canvas').boundingBox();
      await shiftDrag(page, canvas.width * 0.2, canvas.width * 0.8, 5); // from a header: every track
      await page.waitForSelector('[data-testid="range-summary"]');
      const summary = page.locator('[data-testid="range-summary"]');
      const span = Number(await summary.getAttribute('data-span-ps'));
      const rows = await page.locator('table[aria-label="Events in the selected range"] tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({ name: tr.querySelector('td.name').title.split('\n')[0], host: tr.dataset.host, self: Number(tr.dataset.selfPs), track: tr.querySelector('td.track').textContent, on: tr.querySelector('td.on-hosts')?.textContent })),
      );
      for (const r of rows) assert.ok(r.self <= span, `${r.name} on ${r.host}: ${r.self} of ${span} ps`);
      const hostsOf = new Map();
      for (const r of rows) hostsOf.set(r.name, new Set([...(hostsOf.get(r.name) ?? []), r.host]));
      const both = [...hostsOf].filter(([, hosts]) => hosts.size === 2).map(([name]) => name);
      assert.ok(both.some((n) => n.startsWith('ncclKernel')), `a collective on both ranks: ${both.slice(0, 5)}`);
      for (const r of rows.filter((x) => both.includes(x.name))) {
        assert.ok(r.track.startsWith(`${r.host} · `), `its host first: ${r.track}`);
        assert.equal(r.on, '2 of 2', `${r.name} on both ranks`);
      }
      assert.ok(Number(await summary.getAttribute('data-busy-ps')) <= span * Number(await summary.getAttribute('data-track-count')));
    }, 'wild_two_ranks_range_summary_1280', 1280);
  });

  test('the trace viewer of both ranks: queue and memory counters folded, one row per section', async () => {
    await visit('#run=two_ranks&tool=trace_viewer', async (page) => {
      await viewerReady(page);
      assert.equal(await page.locator('.trace-counter-label').count(), 0, 'no counter track unfolded');
      const groups = await page.locator('.trace-counter-group').evaluateAll((els) => els.map((el) => ({ text: el.textContent, title: el.title })));
      assert.ok(groups.length >= 2, JSON.stringify(groups));
      assert.ok(groups.every((g) => /^Counters \(\d+\)$/.test(g.text) && /Queue · /.test(g.title)), JSON.stringify(groups));
      const first = page.locator('.trace-counter-group').first();
      const shown = Number(groups[0].text.match(/\d+/)[0]);
      await first.click();
      await page.waitForFunction((n) => document.querySelectorAll('.trace-counter-label').length === n, shown);
      assert.match(await page.evaluate(() => location.hash), /collapsed=c\d+/);
    }, 'wild_two_ranks_trace_viewer_1280', 1280);
  });
});

describe('a window label on every figure', () => {
  test('the overview, its precision, kernel stats, op stats and stragglers say what they cover', async () => {
    for (const [hash, tool, pick] of [
      ['#run=h100&tool=overview_page', 'overview_page', (d) => d.summary.window],
      ['#run=h100&tool=kernel_stats', 'kernel_stats', (d) => d.summary.window],
      ['#run=h100&tool=framework_op_stats', 'framework_op_stats', (d) => d.window],
      ['#run=two_ranks&tool=stragglers', 'stragglers', (d) => d.window],
      ['#run=two_ranks&tool=pod_viewer', 'pod_viewer', (d) => d.window],
    ])
      await visit(hash, async (page) => {
        await ready(page);
        const run = new URLSearchParams(hash.slice(1)).get('run');
        const data = await api(page, `/api/data?run=${run}&host=&tool=${tool}`);
        const captions = await page.locator('[data-testid="figure-window"]').allTextContents();
        const expected = pick(data);
        assert.ok(captions.includes(`Window: ${expected}`), `${tool}: ${JSON.stringify(captions)} lacks ${expected}`);
        // A run of one host sums over nothing: neither its JSON nor its page says "summed over its hosts".
        if (run === 'h100') assert.ok(!captions.some((c) => /summed over its hosts/.test(c)), `${tool}: ${JSON.stringify(captions)}`);
        if (tool === 'overview_page') assert.equal(await page.locator('[data-testid="precision-window"]').textContent(), `over ${data.precision.window}`);
      }, `wild_window_${tool}_1280`, 1280);
  });
});
