// The XLA op pages (op profile, HLO op stats, roofline model) on XProf's TPU file
// (../shared/testdata/wild/xprof/...tpu_inference_2.xplane.pb: JAX on a TPU v6e, four chips),
// as a TPU user meets them: HLO op names (not the instruction's text) with the text on hover,
// the chips one by one and together (saying over how many), the roofline with its ridge point
// from the file's peaks. Leaves screenshots (tests/server/screenshots/xla_*.png). Run by ctest
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
const visit = (hash, check, name) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name },
    check,
  );
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
