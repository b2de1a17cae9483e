// The XLA op pages (op profile, HLO op stats, roofline model) on XProf's TPU file
// (../shared/testdata/wild/xprof/...tpu_inference_2.xplane.pb: JAX on a TPU v6e, four chips),
// as a TPU user meets them: HLO op names (not the instruction's text) with the text on hover,
// the chips one by one and together (saying over how many), the roofline with its ridge point
// from the file's peaks; the overview and the pod viewer with a row per chip, the run environment
// with the TPU's generation and peaks; the trace with HLO op names and their text; and no GPU
// words (kernel, CUDA, Tensor Cores) in any page's text. Leaves screenshots
// (tests/server/screenshots/xla_*.png, tpu_*.png), at 1280 and 1600 px for the TPU pages. Run by ctest
// as ui_xla_tools_browser_test; skips when the shared test data is absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, skipUnlessRunnable, SKIP, useServedFixture, visit as visitPage } from './harness.mjs';

skipUnlessRunnable();

const testdata = process.env.MLPROF_TESTDATA ?? '';
const tpuFile = path.join(testdata, 'wild', 'xprof', 'xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb');
if (!fs.existsSync(tpuFile)) {
  console.log(`SKIP XLA tool browser tests: no ${tpuFile} (the shared test data is not beside the project)`);
  process.exit(SKIP);
}

const screenshotDir = screenshotDirectory();

function writeLogdir() {
  const logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-xla-ui-'));
  const dir = path.join(logdir, 'plugins', 'profile', 'tpu_v6e');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(tpuFile, path.join(dir, 'tpu-host.xplane.pb'));
  return logdir;
}

const served = useServedFixture(writeLogdir);
const visit = (hash, check, name, width) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name, width },
    check,
  );
const WIDTHS = [1280, 1600];
// GPU words a TPU user should not meet: a TPU runs XLA programs on its chips, not kernels.
const GPU_WORDS = /\bkernels?\b|CUDA|Tensor Cores?|cudaLaunch|\bGPUs?\b/i;
// The same in a page's whole text, hidden parts too (a table's "Columns" menu), run together.
const GPU_WORDS_ANYWHERE = /kernel|CUDA|Tensor Core|cudaLaunch|GPU/i;
// The overview's panel of the critical path tool.
const CRITICAL_PATH_PANEL = 'section.panel:has(> h2:text-is("What bounds the step"))';
async function assertNoGpuWords(page, where, { within = '.page' } = {}) {
  const texts = (kind) => page.locator(within).first()[kind]();
  const [shown, all] = [await texts('innerText'), await texts('textContent')];
  for (const [text, words] of [[shown, GPU_WORDS], [all, GPU_WORDS_ANYWHERE]]) {
    const found = text.match(words);
    assert.equal(found, null, `${where}: "${found?.[0]}" in "${text.slice(Math.max(0, (found?.index ?? 0) - 80), (found?.index ?? 0) + 80)}"`);
  }
}
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });
const cells = (page, label, index) =>
  page.locator(`table[aria-label="${label}"] tbody tr`).evaluateAll((trs, i) => trs.map((tr) => tr.children[i].textContent), index);

describe('XLA op pages on a TPU v6e', () => {
  test('op profile: all chips summed and says so, then each chip; HLO op names with the text on hover', async () => {
    await visit('#run=tpu_v6e&tool=op_profile', async (page) => {
      await ready(page);
      const options = await page.locator('[data-testid="device-select"] option').allTextContents();
      assert.deepEqual(options.slice(1), ['/device:TPU:0', '/device:TPU:1', '/device:TPU:2', '/device:TPU:3']);
      assert.match(options[0], /summed over 4/);
      assert.match(await page.locator('.page-header').textContent(), /TPU v6 Lite/);
      const ops = await cells(page, 'Ops', 1);
      assert.ok(ops.length > 0);
      for (const op of ops) assert.doesNotMatch(op, /[ %]/, `op name "${op}" is not an HLO op name`);
      const hover = await page.locator('table[aria-label="Ops"] tbody tr td span[title^="%"]').count();
      assert.ok(hover > 0, 'no op shows its HLO text on hover');
      assert.match(await page.locator('[data-testid="hbm-util"]').textContent(), /%/);
      const programs = await page.locator('.bar-list[aria-label="Time by program"] .bar-label').allTextContents();
      assert.ok(programs.length > 0 && programs.every((p) => p.startsWith('jit_')), `programs: ${programs}`);
    }, 'xla_op_profile');
    await visit('#run=tpu_v6e&tool=op_profile&view=%2Fdevice%3ATPU%3A2', async (page) => {
      await ready(page);
      assert.equal(await page.locator('[data-testid="device-select"]').inputValue(), '/device:TPU:2');
    }, 'xla_op_profile_chip2');
  });

  test('HLO op stats: one row per HLO op with its category and source; one chip by its number', async () => {
    await visit('#run=tpu_v6e&tool=hlo_stats', async (page) => {
      await ready(page);
      assert.match(await page.locator('.page-header').textContent(), /summed over 4/);
      const names = await cells(page, 'HLO ops', 3);
      assert.ok(names.includes('broadcast_add_fusion'), `rows: ${names}`);
      const categories = await cells(page, 'HLO ops', 2);
      assert.ok(categories.includes('loop fusion') && categories.includes('all-reduce'), `categories: ${categories}`);
    }, 'xla_hlo_stats');
    await visit('#run=tpu_v6e&tool=hlo_stats&device=1', async (page) => {
      await ready(page);
      assert.match(await page.locator('.page-header').textContent(), /\/device:TPU:1/);
    }, 'xla_hlo_stats_chip1');
  });

  test('roofline: the ridge point from the peaks, a dot per op with FLOPs and bytes', async () => {
    await visit('#run=tpu_v6e&tool=roofline_model', async (page) => {
      await ready(page);
      assert.match(await page.locator('[data-testid="ridge-point"]').textContent(), /^560\.4 FLOP\/byte$/);
      assert.ok((await page.locator('[data-testid="roofline-plot"] circle').count()) > 0);
    }, 'xla_roofline_model');
  });
});

describe('a TPU run told in TPU words', () => {
  test('overview: a row per chip, the TPU and its peaks in the run environment, no GPU words', async () => {
    for (const width of WIDTHS)
      await visit('#run=tpu_v6e&tool=overview_page', async (page) => {
        await ready(page);
        // The file's four /device:TPU:N planes, one chip each (core_details), in order.
        assert.deepEqual(await cells(page, 'Chips', 0), ['/device:TPU:0', '/device:TPU:1 (busiest)', '/device:TPU:2', '/device:TPU:3']);
        assert.deepEqual(await cells(page, 'Chips', 1), ['4', '5', '6', '7']);
        assert.match(await page.locator('[data-testid="chips-figures"]').textContent(), /no figure is summed over chips/);
        assert.match(await page.locator('[data-testid="chips-steps"]').textContent(), /jit_f\(/);
        const env = await page.locator('section.panel', { hasText: 'Run environment' }).textContent();
        assert.match(env, /TPU v6 Lite \(v6e\)/);
        assert.match(env, /Chips4, 1 core each/);
        assert.match(env, /918 TFLOP\/s, HBM 1638 GB\/s/);
        assert.match(await page.locator('section.panel', { hasText: 'Top 10 ops' }).locator('h2').textContent(), /^Top 10 ops on the TPU by self time, summed over its 4 cores$/);
        const text = await page.locator('.page').innerText();
        assert.match(text, /program launch/i, 'the launch category in TPU words');
        await assertNoGpuWords(page, 'overview');
      }, `tpu_overview_${width}`, width);
  });

  test('pod viewer: one worker, four chips with their own figures', async () => {
    for (const width of WIDTHS)
      await visit('#run=tpu_v6e&tool=pod_viewer', async (page) => {
        await ready(page);
        assert.match(await page.locator('.page-header').textContent(), /1 worker · 4 chips/);
        assert.match(await page.locator('[data-testid="slowest-worker"]').textContent(), /^The one worker: tpu-host/, 'one worker is no slowest');
        assert.deepEqual(await cells(page, 'Workers', 0), ['tpu-host']);
        const steps = await cells(page, 'Chips', 2); // chip, chip id, steps (one core each: no cores column)
        assert.deepEqual(steps, ['100', '100', '100', '100'], 'each chip ran its main program 100 times');
        assert.match(await page.locator('.page').textContent(), /Program launch/, 'the launch category in TPU words');
        await assertNoGpuWords(page, 'pod viewer');
        assert.doesNotMatch(await page.locator('.page').innerText(), /mlprof::StepTrace/, 'no C++ advice to a JAX program');
      }, `tpu_pod_viewer_${width}`, width);
  });

  test('trace viewer: a chip’s XLA op by its HLO op name, its text on hover and in the details', async () => {
    await visit('#run=tpu_v6e&tool=trace_viewer', async (page) => {
      await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
      const whole = await page.evaluate(async () => (await fetch('/api/trace?run=tpu_v6e&width_px=4000')).json());
      const longNames = Object.entries(whole.long_names ?? {});
      assert.ok(longNames.length > 0, 'no HLO op names with their text in the trace');
      for (const [id, text] of longNames) {
        const name = whole.names[id];
        assert.doesNotMatch(name, /[ %]/, `"${name}" is not an HLO op name`);
        assert.ok(text.startsWith(`%${name} `), `${name}: ${text.slice(0, 80)}`);
      }
      // The whole text opens the trace on that op (a tool row's link), which names it by its HLO op.
      const [id, text] = longNames.find(([i]) => whole.names[i] === 'copy-done.2') ?? longNames[0];
      await page.goto(`${served.server.url}#run=tpu_v6e&tool=trace_viewer&find=${encodeURIComponent(text)}`);
      await page.waitForSelector('.trace-details-name', { timeout: 60_000 });
      assert.equal(await page.locator('.trace-details-name').textContent(), whole.names[id]);
      assert.equal(await page.locator('.trace-details-name').getAttribute('title'), text);
      assert.equal(await page.locator('[data-testid="hlo-text"]').textContent(), text);
      // Hovering over the chips' tracks: an XLA op's tooltip gives its HLO op name, then its whole text.
      await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
      const tip = await page.evaluate(() => {
        const canvas = document.querySelector('.trace-canvas');
        const tooltip = document.querySelector('.trace-tooltip');
        const box = canvas.getBoundingClientRect();
        for (let y = box.top + 2; y < box.bottom; y += 8)
          for (let x = box.left + 2; x < box.right; x += 40) {
            canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y, bubbles: true }));
            if (!tooltip.hidden && tooltip.textContent.includes('\n%')) return tooltip.textContent;
          }
        return '';
      });
      const [line, hlo] = tip.split('\n');
      const hovered = line.split(' · ')[0];
      assert.ok(longNames.some(([i, t]) => whole.names[i] === hovered && t === hlo), `tooltip "${tip.slice(0, 120)}"`);
    }, 'tpu_trace_viewer_details');
  });

  test('what an older writer’s file lacks: one muted line each under the chips', async () => {
    // The TPU file has every stat: its chips' JSON is given two lines of the kind device_chips.cc
    // writes for an older writer's file, as the server would send them.
    const lacks = [
      'The file has no `core_details` stat: each core is shown as a chip of its own.',
      'The file has no "XLA Modules" line on some devices: they have no steps of their own.',
    ];
    for (const tool of ['overview_page', 'pod_viewer']) {
      const page = await served.browser.context.newPage();
      try {
        await page.route(/\/api\/data\?/, async (r) => {
          const reply = await r.fetch();
          const data = await reply.json();
          if (data.chips) data.chips.missing_stats = lacks;
          await r.fulfill({ response: reply, json: data });
        });
        await page.goto(`${served.server.url}#run=tpu_v6e&tool=${tool}`);
        await ready(page);
        const lines = page.locator('[data-testid="chips"] [data-testid="missing-stat"]');
        assert.deepEqual(await lines.allTextContents(), lacks.map((l) => l.replace(/`/g, '')));
        assert.equal(await lines.first().locator('code').textContent(), 'core_details', 'the stat named as code');
        for (const line of await lines.all()) assert.match(await line.getAttribute('class'), /\bmuted\b/);
        await page.screenshot({ path: path.join(screenshotDir, `tpu_${tool}_missing_stats.png`), fullPage: true });
      } finally {
        await page.close();
      }
    }
  });

  test('a megacore chip: busy while any core runs, its split of the cores’ time in its own column', async () => {
    // No file of testdata has a megacore chip (two TensorCores, one core_details chip id): the
    // TPU file's first chip is given two cores as device_chips.cc writes such a row.
    const page = await served.browser.context.newPage();
    try {
      await page.route(/\/api\/data\?/, async (r) => {
        const reply = await r.fetch();
        const data = await reply.json();
        if (data.chips?.chips?.length) {
          const chip = data.chips.chips[0];
          Object.assign(chip, { cores: 2, core_devices: '/device:TPU:0, /device:TPU:1', core_busy_ms: 1.3, busy_ms: 0.9 });
        }
        await r.fulfill({ response: reply, json: data });
      });
      await page.goto(`${served.server.url}#run=tpu_v6e&tool=pod_viewer`);
      await ready(page);
      const headers = await page.locator('[data-testid="chips"] th').allTextContents();
      assert.ok(headers.some((t) => t.startsWith('Core time')), headers.join(' | '));
      const cell = page.locator('[data-testid="chips"] tbody tr').first().locator('span[title="/device:TPU:0, /device:TPU:1"]');
      assert.equal(await cell.count(), 1, 'the chip’s cores on hover');
    } finally {
      await page.close();
    }
    // Without a megacore chip the column stays in the Columns menu.
    await visit('#run=tpu_v6e&tool=pod_viewer', async (page) => {
      await ready(page);
      const headers = await page.locator('[data-testid="chips"] th').allTextContents();
      assert.ok(!headers.some((t) => t.startsWith('Core time')), headers.join(' | '));
    });
  });

  // The critical path in the device's words (its JSON's `labels`), XLA ops by their HLO op name
  // with the instruction's text as `long_name`.
  const criticalPath = async () => (await fetch(new URL('/api/data?run=tpu_v6e&host=&tool=critical_path', served.server.url))).json();
  test('the critical path of a TPU run names its kinds and ops as a TPU user does', async () => {
    const data = await criticalPath();
    assert.equal(data.labels.kernel_launch, 'Program launch');
    assert.equal(data.labels.top_kernels, 'Top device ops');
    assert.equal(data.labels.kernel, 'device op');
    const ops = data.average.top_kernels;
    assert.ok(ops.length > 0, 'device ops on the path');
    for (const op of ops) {
      assert.doesNotMatch(op.name, /[ %]/, `"${op.name}" is not an HLO op name`);
      assert.ok(op.long_name?.startsWith('%'), `${op.name}: its text is ${op.long_name}`);
    }
  });
  test('the overview’s critical path panel of a TPU run in TPU words', async () => {
    await visit('#run=tpu_v6e&tool=overview_page', async (page) => {
      await ready(page);
      assert.equal(await page.locator(CRITICAL_PATH_PANEL).count(), 1);
      await assertNoGpuWords(page, 'the overview’s critical path panel', { within: CRITICAL_PATH_PANEL });
    });
  });
  const availableTools = async () => {
    const tools = await (await fetch(new URL('/api/runs/tpu_v6e/tools', served.server.url))).json();
    return tools.tools.filter((t) => t.available && t.name !== 'trace_viewer').map((t) => t.name);
  };

  test('no page of a TPU run has GPU words', async () => {
    const available = await availableTools();
    assert.ok(['overview_page', 'op_profile', 'critical_path'].every((t) => available.includes(t)), `tools: ${available}`);
    for (const tool of available)
      await visit(`#run=tpu_v6e&tool=${tool}`, async (page) => {
        await ready(page);
        await assertNoGpuWords(page, tool);
      }, `tpu_${tool}`);
  });
});
