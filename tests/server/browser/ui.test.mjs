// The web UI in a real headless Chromium against `mlprof serve` over a fixture logdir
// (tests/server/write_fixture_logdir.cc says what it holds). Run by ctest as ui_browser_test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, makeFixtureLogdir, openPage, skipUnlessRunnable, startServer } from './harness.mjs';

skipUnlessRunnable();

const screenshotDir = process.env.MLPROF_SCREENSHOT_DIR ?? fs.mkdtempSync('/tmp/mlprof-screenshots-');
fs.mkdirSync(screenshotDir, { recursive: true });

let logdir;
let server;
let browser;

before(async () => {
  logdir = makeFixtureLogdir();
  server = await startServer(logdir);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (server) assert.equal(await server.stop(), 0, 'mlprof serve exits 0 on SIGTERM');
  if (logdir) fs.rmSync(logdir, { recursive: true, force: true });
});

// Opens the UI at `hash`, waits for the page to settle, and checks nothing went wrong.
async function visit(hash, check) {
  const { page, problems } = await openPage(browser.context, server.url);
  try {
    await page.goto(`${server.url}${hash}`);
    await settled(page);
    await check(page);
    assert.deepEqual(problems.pageErrors, [], 'no uncaught errors');
    assert.deepEqual(problems.consoleErrors, [], 'no console errors');
    assert.deepEqual(problems.failed, [], 'no failed requests');
    assert.deepEqual(problems.external, [], 'no request leaves 127.0.0.1');
  } finally {
    await page.close();
  }
}

// Waits until the UI has finished showing a view whose URL hash matches `pattern`.
async function settled(page, pattern = /.*/) {
  await page.waitForFunction(
    (source) => document.body.dataset.view !== undefined && new RegExp(source).test(document.body.dataset.view),
    pattern.source,
    { timeout: 15_000 },
  );
}

async function screenshot(page, name) {
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

describe('run and host selection', () => {
  test('opens the newest run first and lists every run', async () => {
    await visit('', async (page) => {
      const runs = await page.locator('#run-select option').allTextContents();
      assert.deepEqual(runs, ['input_bound', 'healthy']);
      assert.equal(await page.locator('#run-select').inputValue(), 'input_bound');
      // One host: picked, nothing to choose.
      assert.equal(await page.locator('#host-select').inputValue(), 'trainer');
      assert.match(page.url(), /#run=input_bound&host=trainer/);
      await screenshot(page, 'start');
    });
  });

  test('a run with two hosts offers each host and all of them', async () => {
    await visit('#run=healthy', async (page) => {
      assert.deepEqual(await page.locator('#host-select option').allTextContents(), ['All hosts', 'trainer', 'worker1']);
      await page.selectOption('#host-select', 'worker1');
      await settled(page, /host=worker1/);
      await page.selectOption('#run-select', 'input_bound');
      await settled(page, /run=input_bound/);
      assert.equal(await page.locator('#host-select').inputValue(), 'trainer');
    });
  });
});
