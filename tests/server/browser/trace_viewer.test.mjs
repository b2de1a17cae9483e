// The trace viewer page in a real headless Chromium over the fixture logdir (see
// tests/server/write_fixture_logdir.cc): its tracks are listed, W zooms in (the visible range
// shrinks), a click on an event shows it in the details pane, and search counts the matches.
// Run by ctest as ui_trace_viewer_browser_test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openPage, screenshotDirectory, skipUnlessRunnable, useServedFixture } from './harness.mjs';

skipUnlessRunnable();

const screenshotDir = screenshotDirectory();
const fixture = useServedFixture();

const visibleRange = (page) =>
  page.locator('.trace-viewer').evaluate((el) => [Number(el.dataset.startPs), Number(el.dataset.endPs)]);

test('trace viewer: tracks, zoom, details and search', async () => {
  const { page, problems } = await openPage(fixture.browser.context, fixture.server.url);
  try {
    await page.goto(`${fixture.server.url}#run=input_bound&host=trainer&tool=trace_viewer`);
    await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 15_000 });

    // The host section with one track per thread.
    const sections = await page.locator('.trace-section-label').allTextContents();
    assert.ok(sections.length >= 1, `sections: ${sections}`);
    const tracks = await page.locator('.trace-track-label').allTextContents();
    assert.ok(tracks.includes('train') && tracks.includes('input_loader'), `tracks: ${tracks}`);

    // The whole trace first (10 steps 110 ms apart), then W zooms in around the middle.
    const [start0, end0] = await visibleRange(page);
    assert.equal(start0, 0);
    assert.ok(end0 > 1000e9 && end0 < 1200e9, `the trace spans about 1.1 s, not ${end0} ps`);
    await page.locator('.trace-canvas').hover();
    await page.keyboard.press('w');
    await page.keyboard.press('w');
    const [start1, end1] = await visibleRange(page);
    assert.ok(end1 - start1 < (end0 - start0) * 0.7, `W zooms in: ${start1}..${end1}`);
    assert.ok(start1 > start0 && end1 < end0, 'around the middle');
    await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
    await page.keyboard.press('s');
    await page.keyboard.press('s');
    await page.keyboard.press('s');
    const [start2, end2] = await visibleRange(page);
    assert.ok(end2 - start2 > end1 - start1, 'S zooms out');
    await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));

    // A click on the train thread's first row, early in a step, hits that step's "train" event.
    const label = await page.locator('.trace-track-label', { hasText: /^train$/ }).boundingBox();
    const canvas = await page.locator('.trace-canvas').boundingBox();
    await page.mouse.click(canvas.x + 30, label.y + 10);
    await page.waitForSelector('.trace-details-name', { timeout: 30_000 });
    assert.equal(await page.locator('.trace-details-name').textContent(), 'train');
    assert.match(await page.locator('.trace-details').textContent(), /step_num/);

    // Search: every step has one aten::addmm.
    await page.locator('.trace-search').fill('addmm');
    await page.locator('.trace-search').press('Enter');
    await page.waitForSelector('.trace-viewer[data-matches]');
    assert.equal(await page.locator('.trace-viewer').getAttribute('data-matches'), '10');
    await page.waitForFunction(() => /1 \/ 10 matches/.test(document.querySelector('.trace-search-count').textContent));
    await page.waitForFunction(() => document.querySelector('.trace-details-name')?.textContent === 'aten::addmm');
    await page.locator('.trace-search').press('Enter');
    await page.waitForFunction(() => /2 \/ 10 matches/.test(document.querySelector('.trace-search-count').textContent));
    await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));

    // Shift-drag measures an interval.
    const box = await page.locator('.trace-canvas').boundingBox();
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + 100, box.y + 5);
    await page.mouse.down();
    await page.mouse.move(box.x + 300, box.y + 5, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    assert.match(await page.locator('.trace-measure').textContent(), /^Measured: [\d.]+ (ps|ns|µs|ms|s)$/);

    await page.screenshot({ path: path.join(screenshotDir, 'trace_viewer.png'), fullPage: true });
    assert.deepEqual(problems.pageErrors, [], 'no uncaught errors');
    assert.deepEqual(problems.consoleErrors, [], 'no console errors');
    assert.deepEqual(problems.failed, [], 'no failed requests');
    assert.deepEqual(problems.external, [], 'no request leaves 127.0.0.1');
  } catch (e) {
    await page.screenshot({ path: path.join(screenshotDir, `trace-viewer-failed-${Date.now()}.png`), fullPage: true }).catch(() => {});
    throw e;
  } finally {
    await page.close();
  }
});
