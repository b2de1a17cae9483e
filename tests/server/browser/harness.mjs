// What the browser tests stand on: an `mlprof serve` on a free port over a fixture logdir, and
// a headless Chromium (the system's, never a downloaded one) whose every request, console
// message and page error is recorded. Requests that would leave 127.0.0.1 are blocked and
// recorded, so a test can assert that the UI works with no network at all.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';

export const SKIP = 77; // ctest's SKIP_RETURN_CODE

const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking switches Chromium phones home at start, which a machine
// with no network answers slowly or not at all.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (ctest sets it; see tests/server/CMakeLists.txt)`);
  return value;
}

// playwright-core lives in ui/node_modules, not beside this file.
export function loadPlaywright() {
  const require = createRequire(path.join(env('MLPROF_UI_DIR'), 'package.json'));
  try {
    return require('playwright-core');
  } catch {
    return null;
  }
}

export function skipUnlessRunnable() {
  const reasons = [];
  if (!fs.existsSync(CHROMIUM)) reasons.push(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  if (!loadPlaywright()) reasons.push('playwright-core is not installed (run npm ci in ui/)');
  if (reasons.length) {
    console.log(`SKIP browser tests: ${reasons.join('; ')}`);
    process.exit(SKIP);
  }
}

export function makeFixtureLogdir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-ui-test-'));
  const r = spawnSync(env('WRITE_FIXTURE_LOGDIR'), [dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`write_fixture_logdir failed: ${r.stderr}`);
  return dir;
}

// Starts `mlprof serve LOGDIR --port 0 [ARGS]` and resolves with its URL once it listens.
// Real profiles from ../shared/testdata/wild by key, or the test skips (with the files it lacks):
// `wildFilesOrSkip({h100: ['tracelens', 'kineto_h100', '...json.gz'], ...})`.
export function wildFilesOrSkip(parts) {
  const wild = path.join(process.env.MLPROF_TESTDATA ?? '', 'wild');
  const files = Object.fromEntries(Object.entries(parts).map(([key, p]) => [key, path.join(wild, ...p)]));
  const missing = Object.values(files).filter((f) => !fs.existsSync(f));
  if (missing.length) {
    console.log(`SKIP wild-trace browser tests: no ${missing.join(', ')} (the shared test data is not beside the project)`);
    process.exit(SKIP);
  }
  return files;
}

// A logdir of runs from copies of real files: entries are [run, host, file, extension].
export function logdirOfCopies(prefix, entries) {
  const logdir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [run, host, file, extension = '.pt.trace.json.gz'] of entries) {
    const dir = path.join(logdir, 'plugins', 'profile', run);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, `${host}${extension}`));
  }
  return logdir;
}

export function startServer(logdir, args = []) {
  const child = spawn(env('MLPROF'), ['serve', logdir, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`mlprof serve printed no URL in 20 s:\n${output}`)), 20_000);
    const fail = (e) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    const onData = (chunk) => {
      output += chunk;
      const m = output.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          output: () => output,
          stop: () => stopServer(child),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => fail(new Error(`mlprof serve exited with ${code}:\n${output}`)));
  });
}

// SIGTERM, then the exit code (0 for a clean stop).
function stopServer(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.on('exit', (code, signal) => resolve(code ?? signal));
    child.kill('SIGTERM');
  });
}

export async function launchBrowser() {
  const { chromium } = loadPlaywright();
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 1000 },
    acceptDownloads: true,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

// Opens a page that records console errors, page errors, failed requests and requests that
// would leave the server's origin (those are blocked).
export async function openPage(context, serverUrl) {
  const origin = new URL(serverUrl).origin;
  const page = await context.newPage();
  page.setDefaultTimeout(10_000); // fail fast: every step here takes well under a second
  const problems = { consoleErrors: [], pageErrors: [], external: [], failed: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (e) => problems.pageErrors.push(String(e)));
  page.on('requestfailed', (req) => {
    if (!req.url().startsWith(origin)) return; // blocked below, recorded there
    // A download that the browser hands to its download manager shows as aborted.
    if (req.failure()?.errorText === 'net::ERR_ABORTED' && req.url().includes('/api/csv')) return;
    // The trace viewer cancels its viewport fetch when the view moves on or the page closes.
    if (req.failure()?.errorText === 'net::ERR_ABORTED' && req.url().includes('/api/trace?')) return;
    problems.failed.push(`${req.url()}: ${req.failure()?.errorText}`);
  });
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    problems.external.push(url);
    return route.abort('blockedbyclient');
  });
  return { page, problems };
}

// For a whole test file: a logdir (the fixture's, or what `makeLogdir` writes) served by
// `mlprof serve` and a browser, set up before its tests and torn down after them (mlprof serve
// must exit 0 on SIGTERM). The returned object's fields are filled in once the tests start.
export function useServedFixture(makeLogdir = makeFixtureLogdir) {
  const fixture = { logdir: undefined, server: undefined, browser: undefined };
  before(async () => {
    fixture.logdir = makeLogdir();
    fixture.server = await startServer(fixture.logdir);
    fixture.browser = await launchBrowser();
  });
  after(async () => {
    await fixture.browser?.close();
    if (fixture.server) assert.equal(await fixture.server.stop(), 0, 'mlprof serve exits 0 on SIGTERM');
    if (fixture.logdir) fs.rmSync(fixture.logdir, { recursive: true, force: true });
  });
  return fixture;
}

// Where screenshots go: the build tree's folder when ctest names one, else a fresh temp folder.
export function screenshotDirectory() {
  const dir = process.env.MLPROF_SCREENSHOT_DIR ?? fs.mkdtempSync('/tmp/mlprof-screenshots-');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// Opens `url` on a fresh page, waits for `ready(page)`, runs `check(page)`, then asserts that
// the page logged no error, no request failed and none left 127.0.0.1. With `name`, a
// screenshot of the page at the end goes to `screenshotDir`; a failure always leaves one. With
// `width`, the window is that wide (1400 px otherwise).
export async function visit({ context, url, ready, screenshotDir, name, width }, check) {
  const { page, problems } = await openPage(context, url);
  try {
    if (width) await page.setViewportSize({ width, height: 1000 });
    await page.goto(url);
    if (ready) await ready(page);
    await check(page);
    if (name) await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
    assert.deepEqual(problems.pageErrors, [], 'no uncaught errors');
    assert.deepEqual(problems.consoleErrors, [], 'no console errors');
    assert.deepEqual(problems.failed, [], 'no failed requests');
    assert.deepEqual(problems.external, [], 'no request leaves 127.0.0.1');
  } catch (e) {
    if (screenshotDir)
      await page
        .screenshot({ path: path.join(screenshotDir, `${name ?? 'visit'}-failed-${Date.now()}.png`), fullPage: true })
        .catch(() => {});
    throw e;
  } finally {
    await page.close();
  }
}

// Waits until the app has finished showing a view whose URL hash matches `pattern`.
export async function settled(page, pattern = /.*/, timeout = 15_000) {
  await page.waitForFunction(
    (source) => document.body.dataset.view !== undefined && new RegExp(source).test(document.body.dataset.view),
    pattern.source,
    { timeout },
  );
}

// A shift-drag across the trace viewer's canvas from x0 to x1 (pixels from its left) at y:
// a range selection.
export async function shiftDrag(page, x0, x1, y) {
  const box = await page.locator('.trace-canvas').boundingBox();
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + x0, box.y + y);
  await page.mouse.down();
  await page.mouse.move(box.x + x1, box.y + y, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
}

// The trace viewer's counter tracks (queues, memory) start folded, one row per section:
// unfolds them all.
export async function unfoldCounters(page) {
  const folded = page.locator('.trace-counter-group[aria-expanded="false"], .trace-section-label[data-key="counters"][aria-expanded="false"]');
  for (let i = 0; i < 64 && (await folded.count()) > 0; ++i) await folded.first().click();
}
