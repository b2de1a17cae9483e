// The compare page in a real headless Chromium against `mlprof serve` over the fixture logdir
// (tests/server/write_fixture_logdir.cc): run A "healthy" (2 to 6 ms of input wait per step,
// aten::mm 45 ms) against run B "input_bound" (60 to 64 ms of input wait, aten::mm 16 ms).
// Run by ctest as ui_compare_browser_test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { openPage, screenshotDirectory, skipUnlessRunnable, useServedFixture } from './harness.mjs';

skipUnlessRunnable();

const screenshotDir = screenshotDirectory();
const fixture = useServedFixture();

async function settled(page, pattern = /.*/) {
  await page.waitForFunction(
    (source) => document.body.dataset.view !== undefined && new RegExp(source).test(document.body.dataset.view),
    pattern.source,
    { timeout: 15_000 },
  );
}

async function tableRows(page, label) {
  return page.locator(`table[aria-label="${label}"] tbody tr`).evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())),
  );
}

function assertNoProblems(problems) {
  assert.deepEqual(problems.pageErrors, [], 'no uncaught errors');
  assert.deepEqual(problems.consoleErrors, [], 'no console errors');
  assert.deepEqual(problems.failed, [], 'no failed requests');
  assert.deepEqual(problems.external, [], 'no request leaves 127.0.0.1');
}

describe('compare runs', () => {
  test('opens from the sidebar, picks run A and run B, and shows what changed', async () => {
    const { page, problems } = await openPage(fixture.browser.context, fixture.server.url);
    try {
      await page.goto(`${fixture.server.url}#run=healthy&host=trainer&tool=overview_page`);
      await settled(page, /tool=overview_page/);

      await page.click('[data-testid="compare-runs-link"]');
      await settled(page, /compare=1/);
      // The link starts from the run being looked at; B is still to pick.
      assert.equal(await page.locator('#compare-run-a').inputValue(), 'healthy');
      assert.match(await page.locator('.compare-empty').textContent(), /Pick run A and run B/);

      await page.selectOption('#compare-run-b', 'input_bound');
      await settled(page, /run_b=input_bound/);
      await page.locator('[data-testid="step-time-change"]').waitFor();
      const url = new URL(page.url());
      const params = new URLSearchParams(url.hash.slice(1));
      assert.equal(params.get('run_a'), 'healthy');
      assert.equal(params.get('host_a'), 'trainer');
      assert.equal(params.get('run_b'), 'input_bound');

      // Both runs' steps take 102 ms on average (100 ms plus 0 to 4 ms of input jitter).
      assert.equal(await page.locator('[data-testid="step-time-a"]').textContent(), '102 ms');
      assert.equal(await page.locator('[data-testid="step-time-b"]').textContent(), '102 ms');
      assert.match(await page.locator('[data-testid="step-time-change"]').textContent(), /^0 ms \(0\.0%\)$/);

      // The breakdown chart: one group per category with time, A and B side by side, an axis in ms.
      assert.equal(await page.locator('.grouped-bar-chart .axis-title').textContent(), 'ms per step');
      const inputBars = page.locator('.grouped-bar-chart rect[data-group="Input"]');
      assert.equal(await inputBars.count(), 2);
      assert.equal(await inputBars.first().getAttribute('fill'), '#d93025'); // the UI's input colour
      const breakdown = await tableRows(page, 'Breakdown change');
      const input = breakdown.find((r) => r[0] === 'Input');
      assert.ok(input, JSON.stringify(breakdown));
      assert.match(input[3], /^\+58(\.0)? ms$/);

      const slower = await tableRows(page, 'Slower ops');
      const prefetch = slower.find((r) => r[2] === 'Iterator::Prefetch');
      assert.ok(prefetch, JSON.stringify(slower));
      // Times print with the digits that matter; sums of float milliseconds may keep a '.0'.
      const ms = (text) => text.replace(/\.0+ /, ' ');
      // Per analysed step (all ten: the capture cuts none; jitters 0,2,4,1,3,0,2,4,1,3 ms, 2 on
      // average): 2 + 2 ms against 60 + 2 ms.
      assert.deepEqual(prefetch.slice(3, 6).map(ms), ['4 ms', '62 ms', '+58 ms']);
      const faster = await tableRows(page, 'Faster ops');
      const mm = faster.find((r) => r[2] === 'aten::mm');
      assert.ok(mm, JSON.stringify(faster));
      assert.deepEqual(mm.slice(3, 6).map(ms), ['45 ms', '16 ms', '−29 ms']);
      assert.deepEqual(await tableRows(page, 'Added ops'), [['No op is new in B.']]);
      await page.screenshot({ path: path.join(screenshotDir, 'compare.png'), fullPage: true });

      // Swapping makes the slower op faster; the URL keeps the choice across a reload.
      await page.click('#compare-swap');
      await settled(page, /run_a=input_bound/);
      await page.locator('[data-testid="step-time-change"]').waitFor();
      assert.ok((await tableRows(page, 'Faster ops')).some((r) => r[2] === 'Iterator::Prefetch'));
      await page.reload();
      await settled(page, /compare=1/);
      assert.equal(await page.locator('#compare-run-a').inputValue(), 'input_bound');
      assert.equal(await page.locator('#compare-run-b').inputValue(), 'healthy');
      assertNoProblems(problems);
    } catch (e) {
      await page.screenshot({ path: path.join(screenshotDir, `compare-failed-${Date.now()}.png`), fullPage: true }).catch(() => {});
      throw e;
    } finally {
      await page.close();
    }
  });

  test('an unknown run shows a message, not a blank page', async () => {
    const { page, problems } = await openPage(fixture.browser.context, fixture.server.url);
    try {
      await page.goto(`${fixture.server.url}#compare=1&run_a=healthy&run_b=gone`);
      await settled(page, /compare=1/);
      assert.match(await page.locator('.notice-error').textContent(), /no run named 'gone'/);
      assert.deepEqual(problems.pageErrors, []);
      assert.deepEqual(problems.external, []);
      // The 404 itself is the only console error a browser logs for it.
      assert.ok(problems.consoleErrors.every((m) => /404/.test(m)), JSON.stringify(problems.consoleErrors));
    } finally {
      await page.close();
    }
  });
});
