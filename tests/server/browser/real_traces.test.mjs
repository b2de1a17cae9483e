// The web UI on real profiles, as a new user meets it: a PyTorch ResNet-50 trace from a V100
// (../shared/testdata/pytorch/ns_resolution_trace...), TensorFlow's 8-GPU BERT file, two small
// PyTorch traces to compare, and a GPU-less run captured here by the pool allocator example.
// Each point asserted from the page: readable tables, a trace viewer that opens on the steps
// with devices first, every tool reachable, guidance that links, charts in one unit. It leaves a
// screenshot of every page of the PyTorch and TensorFlow runs in the build tree
// (tests/server/screenshots/real_*.png). Run by ctest as ui_real_traces_browser_test; skips
// when the shared test data is absent.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  screenshotDirectory,
  settled,
  shiftDrag,
  skipUnlessRunnable,
  SKIP,
  useServedFixture,
  visit as visitPage,
  unfoldCounters,
} from './harness.mjs';

skipUnlessRunnable();

const testdata = process.env.MLPROF_TESTDATA ?? '';
const files = {
  pytorch: path.join(testdata, 'pytorch', 'ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz'),
  tensorflow: path.join(testdata, 'tensorflow', 'gpu_multi_worker.xplane.pb'),
  base: path.join(testdata, 'pytorch', 'trace_compare__base__base.json.gz'),
  test: path.join(testdata, 'pytorch', 'trace_compare__test__test.json.gz'),
};
const missing = Object.values(files).filter((f) => !fs.existsSync(f));
if (missing.length) {
  console.log(`SKIP real-trace browser tests: no ${missing.join(', ')} (the shared test data is not beside the project)`);
  process.exit(SKIP);
}

const screenshotDir = screenshotDirectory();
const PYTORCH_HOST = 'rank-0.Apr_03_18_51_38.1102'; // the file's own name: long on purpose

function copyRun(logdir, run, host, file, extension) {
  const dir = path.join(logdir, 'plugins', 'profile', run);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(file, path.join(dir, `${host}${extension}`));
}

function writeLogdir() {
  const logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-real-ui-'));
  copyRun(logdir, 'resnet_gpu', PYTORCH_HOST, files.pytorch, '.pt.trace.json.gz');
  copyRun(logdir, 'bert_tf', 'worker0', files.tensorflow, '.xplane.pb');
  copyRun(logdir, 'compare_base', 'worker0', files.base, '.pt.trace.json.gz');
  copyRun(logdir, 'compare_test', 'worker0', files.test, '.pt.trace.json.gz');
  // Two ranks in one run: the pod viewer's case.
  copyRun(logdir, 'two_ranks', 'rank0', files.base, '.pt.trace.json.gz');
  copyRun(logdir, 'two_ranks', 'rank1', files.test, '.pt.trace.json.gz');
  // A run captured here, with no GPU.
  const example = process.env.POOL_ALLOCATOR;
  if (example) {
    const r = spawnSync(example, ['--logdir', logdir, '--run-name', 'cpu_capture', '--steps', '3'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  return logdir;
}

const served = useServedFixture(writeLogdir);

const visit = (hash, check, name) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name },
    check,
  );
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });

// Every cell of the table's column `title`, with its size (its name's height) and whether it
// keeps to one line.
async function column(page, label, title) {
  return page.locator(`table[aria-label="${label}"]`).evaluate((table, t) => {
    const ths = [...table.querySelectorAll('thead th')];
    const i = ths.findIndex((th) => th.textContent.replace(/[▲▼]/g, '').trim() === t);
    if (i < 0) return null;
    return [...table.querySelectorAll('tbody tr')].slice(0, 20).map((tr) => {
      const td = tr.children[i];
      const style = getComputedStyle(td);
      // A repeated kernel name says its launch shape on a line under it: the name is above.
      const name = td.querySelector('.cell-aside') ? td.firstElementChild : td;
      return { text: name.textContent, title: td.title, width: td.getBoundingClientRect().width, height: name.getBoundingClientRect().height, nowrap: style.whiteSpace === 'nowrap', sticky: style.position === 'sticky' };
    });
  }, title);
}

const headings = (page, label) =>
  page.locator(`table[aria-label="${label}"] thead th`).evaluateAll((ths) => ths.map((th) => th.textContent.replace(/[▲▼]/g, '').trim()));

describe('tables', () => {
  test('TensorFlow op stats: names on one line, whole on hover, wide; leading columns stay while numbers scroll', async () => {
    await visit('#run=bert_tf&tool=framework_op_stats', async (page) => {
      await ready(page);
      const ops = await column(page, 'Framework ops', 'Operation');
      assert.ok(ops.length > 5);
      for (const cell of ops) {
        assert.ok(cell.nowrap, 'one line');
        assert.ok(cell.height < 40, `a row ${cell.height} px tall`);
        assert.equal(cell.title, cell.text, 'the whole name on hover');
        assert.ok(cell.width >= 300, `the name column is ${cell.width} px wide`);
        assert.ok(cell.sticky, 'the name stays while the numbers scroll');
      }
      // Every column shown (the "Columns" menu), the table is wider than the window: scrolled
      // sideways, the operation stays where it was and the numbers move under it.
      await page.click('.table-columns summary');
      for (const box of await page.locator('.table-columns input[type="checkbox"]').all()) await box.check();
      await page.click('.table-columns summary');
      const scroller = page.locator('.table-scroll').last();
      const before = await page.locator('table[aria-label="Framework ops"] tbody tr:first-child td').evaluateAll((tds) => tds.map((td) => td.getBoundingClientRect().left));
      await scroller.evaluate((el) => (el.scrollLeft = 300));
      await page.waitForTimeout(50);
      const after = await page.locator('table[aria-label="Framework ops"] tbody tr:first-child td').evaluateAll((tds) => tds.map((td) => td.getBoundingClientRect().left));
      const name = (await headings(page, 'Framework ops')).indexOf('Operation');
      assert.ok(Math.abs(after[name] - before[name]) < 1, 'the name column stays put');
      assert.ok(before.at(-1) - after.at(-1) > 100, 'the last column scrolled into view');
      const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
      assert.ok(pageHeight < 6000, `the page is ${pageHeight} px long`);
    }, 'real_tensorflow_framework_op_stats');
  });

  test('PyTorch op stats: no Type column repeating the name, no by-type pie equal to by-op', async () => {
    await visit('#run=resnet_gpu&tool=framework_op_stats', async (page) => {
      await ready(page);
      assert.ok(!(await headings(page, 'Framework ops')).includes('Type'));
      const pies = await page.locator('.pie figcaption').allTextContents();
      assert.deepEqual(pies, ['Self time on the host, by op', 'Self time on the device, by op']);
    }, 'real_pytorch_framework_op_stats');
    await visit('#run=resnet_gpu&tool=kernel_stats', async (page) => {
      await ready(page);
      const kernels = await column(page, 'Kernels', 'Kernel');
      assert.ok(kernels.every((c) => c.nowrap && c.height < 40 && c.title.length >= c.text.length - 1));
    }, 'real_pytorch_kernel_stats');
  });
});

const viewerReady = async (page) => {
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-rows'));
  await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
};
const viewer = (page, name) => page.locator('.trace-viewer').getAttribute(`data-${name}`);

describe('trace viewer', () => {
  test('PyTorch: opens on the steps, the GPU first with its queue length, flows of the selection only, range summary', async () => {
    await visit('#run=resnet_gpu&tool=trace_viewer', async (page) => {
      await viewerReady(page);
      const api = await page.evaluate(async (host) => {
        const first = await (await fetch(`/api/trace?run=resnet_gpu&host=${host}&width_px=1&steps=1`)).json();
        const counters = await (await fetch(`/api/trace/counters?run=resnet_gpu&host=${host}`)).json();
        return { total: first.end_ps, steps: first.steps, counters: counters.counters };
      }, PYTORCH_HOST);
      // The first three of the trace's steps (ProfilerStep#102..#104), not the whole trace.
      const start = Number(await viewer(page, 'start-ps'));
      const end = Number(await viewer(page, 'end-ps'));
      const [s0, s2] = [api.steps[0], api.steps[2]];
      assert.ok(start <= s0[0] && start >= s0[0] - 0.05 * (s2[0] + s2[1] - s0[0]), `the view starts at the first step: ${start} vs ${s0[0]}`);
      assert.ok(Math.abs(end - (s2[0] + s2[1])) < 0.05 * (end - start), 'and ends after the third');
      assert.ok(end - start < api.total, 'not the whole trace');
      assert.match(await page.locator('.trace-axis').getAttribute('aria-label'), /^Time axis: \d+ ms, \d+ ms/);
      // Devices first, with the stream's queue length at the top of the GPU's section. HTA
      // 0.6.1's queue_length_summary for this trace: stream 7 peaks at 1022
      // (../shared/testdata/hta_expected, "max": 1022).
      const sections = await page.locator('.trace-section-label').allTextContents();
      assert.equal(sections[0], '/device:GPU:0');
      const queue = api.counters.find((c) => /^Queue · Stream #7/.test(c.name));
      assert.ok(queue, JSON.stringify(api.counters.map((c) => c.name)));
      assert.equal(Math.max(...queue.points.map((p) => p[1])), 1022);
      assert.equal(await page.locator('.trace-counter-label').count(), 0, 'counters folded at first');
      await unfoldCounters(page);
      assert.match((await page.locator('.trace-counter-label').first().textContent()), /^Queue · Stream #7/);
      // No grey mesh: no flow is drawn until an event is selected.
      assert.equal(await viewer(page, 'flows-drawn'), '0');
      assert.equal(await page.locator('.trace-flows-toggle').getAttribute('aria-pressed'), 'false');
      // The timeline may take the window's height, leaving room for the details below.
      const box = await page.locator('.trace-scroller').boundingBox();
      const room = await page.locator('.trace-scroller').evaluate((el) => parseFloat(el.style.maxHeight));
      assert.ok(box.y + room > 1000 - 260, `the timeline may reach ${box.y + room} px of 1000`);
      // Selecting a range lists its events per name with counts and total times.
      await shiftDrag(page, 200, 500, 30);
      await page.waitForSelector('[data-testid="range-summary"]');
      const rows = await page.locator('table[aria-label="Events in the selected range"] tbody tr').count();
      assert.ok(rows > 10, `${rows} names in the range`);
    }, 'real_pytorch_trace_viewer');
  });

  test('TensorFlow: every GPU listed (empty ones once, at the end, folded, saying so), memory in use per allocator', async () => {
    await visit('#run=bert_tf&tool=trace_viewer', async (page) => {
      await viewerReady(page);
      const group = page.locator('.trace-section-label[data-key="empty"]');
      assert.equal(await group.getAttribute('aria-expanded'), 'false');
      const folded = await page.locator('.trace-section-label').allTextContents();
      assert.match(folded.at(-1), /^Devices with no events \(\d\)$/);
      await group.click();
      await page.waitForSelector('.trace-section-label[data-key="empty"][aria-expanded="true"]');
      const sections = await page.locator('.trace-section-label').allTextContents();
      const gpus = sections.filter((s) => /^\/device:GPU:\d/.test(s));
      assert.equal(gpus.length, 8, `sections: ${sections}`);
      const firstHost = sections.findIndex((s) => s.startsWith('/host'));
      assert.ok(sections.findIndex((s) => s.startsWith('/device')) < firstHost, 'devices before the host threads');
      for (const s of gpus.filter((g) => g.endsWith('(no events)')))
        assert.match(await page.locator('.trace-section-label', { hasText: s }).getAttribute('title'), /no events were recorded/);
      await unfoldCounters(page);
      const counters = await page.locator('.trace-counter-label').allTextContents();
      assert.ok(counters.some((c) => /^Memory in use · GPU_\d_bfc$/.test(c)), `counters: ${counters}`);
      assert.ok(Number(await viewer(page, 'steps')) >= 1);
    }, 'real_tensorflow_trace_viewer');
  });
});

describe('every tool reachable', () => {
  test('a run with two hosts lists the pod viewer', async () => {
    await visit('#run=two_ranks', async (page) => {
      const tools = await page.locator('.tool-nav a:not(.no-data)').allTextContents();
      assert.ok(tools.includes('Pod viewer'), `tools: ${tools}`);
    });
  });

  test('a captured run without a GPU: kernel stats greyed with the reason, its page says how to get the data', { skip: !process.env.POOL_ALLOCATOR && 'POOL_ALLOCATOR is not set' }, async () => {
    await visit('#run=cpu_capture', async (page) => {
      // Listed once at the end, folded: unfolded to reach it.
      const fold = page.locator('[data-testid="tools-without-data"]');
      if ((await fold.getAttribute('open')) === null) await fold.locator('summary').click();
      const kernel = fold.locator('a[data-tool="kernel_stats"]');
      assert.equal(await kernel.getAttribute('class'), 'no-data');
      assert.match(await kernel.getAttribute('title'), /^No data: .+/);
      await kernel.click();
      await settled(page, /tool=kernel_stats/);
      assert.equal(await page.locator('.page[data-no-data="true"] h1').textContent(), 'Kernel stats');
      assert.match(await page.locator('[data-testid="how-to-get"]').textContent(), /^To get it: .+/);
      assert.equal(await page.locator('.tool-nav a[aria-current="page"]').count(), 1);
    }, 'real_captured_no_gpu');
  });

  test('GPU timeline pages: bars for shares, a table per part, the scope picker; stragglers of two ranks', async () => {
    for (const tool of ['gpu_time_breakdown', 'gpu_idle_time', 'comm_compute_overlap', 'kernel_launch_stats', 'gpu_queue_length'])
      await visit(`#run=resnet_gpu&tool=${tool}`, async (page) => {
        await ready(page);
        assert.ok((await page.locator('.panel').count()) > 0, `${tool}: no panel`);
        assert.equal(await page.locator('#gpu-scope-select').inputValue(), 'hta');
      }, `real_pytorch_${tool}`);
    await visit('#run=resnet_gpu&tool=gpu_idle_time&scope=steps', async (page) => {
      await ready(page);
      assert.equal(await page.locator('#gpu-scope-select').inputValue(), 'steps');
      assert.ok((await page.locator('.bar-list[aria-label^="Idle time of stream"]').count()) > 0);
    }, 'real_pytorch_gpu_idle_time_steps');
    await visit('#run=two_ranks&tool=stragglers', async (page) => {
      await ready(page);
      assert.equal(await page.locator('table[aria-label="Ranks"] tbody tr').count(), 2);
    }, 'real_two_ranks_stragglers');
  });
});

describe('guidance', () => {
  test('tool names in recommendations are links; no internal key reaches a page; a category keeps its colour', async () => {
    const colours = new Map(); // colour -> label, across pages
    const remember = async (page, selector) => {
      for (const [colour, label] of await page.locator(selector).evaluateAll((rows) =>
        rows.map((row) => [getComputedStyle(row.querySelector('.bar-fill')).backgroundColor, row.querySelector('.bar-label').textContent]),
      )) {
        if (!label) continue;
        const known = colours.get(colour);
        assert.ok(!known || known === label, `${colour} is both ${known} and ${label}`);
        colours.set(colour, label);
      }
    };
    await visit('#run=resnet_gpu&tool=overview_page', async (page) => {
      await ready(page);
      const link = page.locator('.recommendations a.tool-link').first();
      assert.ok(await link.count(), 'a recommendation links to a tool');
      const tool = await link.getAttribute('data-tool-link');
      await remember(page, '.bar-list .bar-row');
      await link.click();
      await settled(page, new RegExp(`tool=${tool}`));
    }, 'real_pytorch_overview_page');
    for (const [run, name] of [['resnet_gpu', 'real_pytorch'], ['bert_tf', 'real_tensorflow']]) {
      await visit(`#run=${run}&tool=input_pipeline_analyzer`, async (page) => {
        await ready(page);
        const text = await page.locator('main').textContent();
        assert.doesNotMatch(text, /reading_data_from_files|enqueuing_data_to_device|data_preprocessing|_analyzer\b/);
        await remember(page, '.bar-list .bar-row');
      }, `${name}_input_pipeline_analyzer`);
    }
  });

  test('compare: no huge percentage from a near-zero baseline, no colour for tiny changes, one page highlighted', async () => {
    await visit('#compare=1&run_a=compare_base&run_b=compare_test', async (page) => {
      await page.waitForSelector('.page[data-tool="compare"][data-ready="true"]', { timeout: 60_000 });
      assert.equal(await page.locator('.sidebar [aria-current="page"]').count(), 1);
      const cells = await page.locator('table tbody tr').evaluateAll((trs) =>
        trs.flatMap((tr) => [...tr.querySelectorAll('td span[class^="change-"]')].map((s) => [s.className, s.textContent, tr.lastElementChild.textContent])),
      );
      assert.ok(cells.length > 0);
      for (const [cls, change, pct] of cells) {
        assert.doesNotMatch(pct, /\d{4,}(\.\d)?\s?%/, `a percentage of ${pct}`);
        const m = change.match(/^[+−](\d+(?:\.\d+)?) (ns|µs|ms|s)$/);
        if (m && cls !== 'change-none') {
          const ms = Number(m[1]) * { ns: 1e-6, µs: 1e-3, ms: 1, s: 1000 }[m[2]];
          assert.ok(ms >= 0.01, `${change} is coloured ${cls}`);
        }
      }
    }, 'real_compare');
  });
});

describe('charts and hosts', () => {
  test('memory timeline in one unit; step graph legend before hover; a long host name is read whole, the same everywhere', async () => {
    await visit('#run=bert_tf&tool=memory_profile', async (page) => {
      await ready(page);
      assert.match(await page.locator('.memory-timeline').getAttribute('aria-label'), /time in s, memory in GiB/);
      const legend = await page.locator('.memory-timeline .u-legend .u-value').allTextContents();
      assert.ok(legend.every((v) => v.trim() !== ''), `legend before hover: ${legend}`);
    }, 'real_tensorflow_memory_profile');
    await visit(`#run=resnet_gpu&tool=overview_page`, async (page) => {
      await ready(page);
      const legend = await page.locator('.u-legend .u-series').allTextContents();
      assert.ok(legend.some((t) => /Device compute:?\s*[\d.]+ ms/.test(t)), `legend: ${legend}`);
      assert.equal(await page.locator('#host-select').inputValue(), PYTORCH_HOST);
      assert.equal(await page.locator('[data-testid="full-name"]').last().textContent(), PYTORCH_HOST);
      assert.match(await page.locator('.page-header p').first().textContent(), new RegExp(PYTORCH_HOST.replace(/\./g, '\\.')));
      assert.match(await page.locator('.panel:has(h2:text("Run environment"))').textContent(), new RegExp(`Hosts1 \\(${PYTORCH_HOST.replace(/\./g, '\\.')}`));
    });
  });

  test('screenshots of every other page', async () => {
    for (const [run, name] of [['resnet_gpu', 'real_pytorch'], ['bert_tf', 'real_tensorflow']])
      for (const tool of ['kernel_stats', 'tf_data_bottleneck_analysis', 'memory_profile', 'pod_viewer'])
        await visit(`#run=${run}&tool=${tool}`, (page) => ready(page), `${name}_${tool}`);
  });
});
