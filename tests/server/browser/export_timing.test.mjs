// Two checks of the web UI against the command line and the clock, over the fixture logdir
// (tests/server/write_fixture_logdir.cc). Run by ctest as ui_export_timing_browser_test.
//  - The framework op stats page's "Export as CSV" download is byte for byte what
//    `mlprof report PATH --tool framework_op_stats --format csv` prints for the same run.
//  - How long the overview takes to render after navigation, printed as one line (not asserted:
//    a loaded machine makes any bound flaky).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { openPage, skipUnlessRunnable, useServedFixture } from './harness.mjs';

skipUnlessRunnable();

const fixture = useServedFixture();

async function settled(page, pattern = /.*/) {
  await page.waitForFunction(
    (source) => document.body.dataset.view !== undefined && new RegExp(source).test(document.body.dataset.view),
    pattern.source,
    { timeout: 15_000 },
  );
}

function assertNoProblems(problems) {
  assert.deepEqual(problems.pageErrors, [], 'no uncaught errors');
  assert.deepEqual(problems.consoleErrors, [], 'no console errors');
  assert.deepEqual(problems.failed, [], 'no failed requests');
  assert.deepEqual(problems.external, [], 'no request leaves 127.0.0.1');
}

describe('framework op stats CSV export', () => {
  for (const [run, host] of [
    ['input_bound', ''],
    ['healthy', 'worker1'],
  ]) {
    test(`the download of ${run}${host ? ` / ${host}` : ''} equals mlprof report --format csv`, async () => {
      const { page, problems } = await openPage(fixture.browser.context, fixture.server.url);
      try {
        await page.goto(`${fixture.server.url}#run=${run}${host ? `&host=${host}` : ''}&tool=framework_op_stats`);
        await settled(page, /tool=framework_op_stats/);
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
        const downloaded = fs.readFileSync(await download.path());

        const args = ['report', path.join(fixture.logdir, 'plugins', 'profile', run), '--tool', 'framework_op_stats', '--format', 'csv'];
        if (host) args.push('--host', host);
        const cli = spawnSync(process.env.MLPROF, args, { maxBuffer: 64 << 20 });
        assert.equal(cli.status, 0, String(cli.stderr));
        assert.ok(downloaded.length > 100, 'the CSV has rows');
        assert.equal(downloaded.toString('utf8'), cli.stdout.toString('utf8'));
        assert.ok(downloaded.equals(cli.stdout), 'byte for byte');
        assertNoProblems(problems);
      } finally {
        await page.close();
      }
    });
  }
});

describe('overview render time', () => {
  test('is measured from navigation to the rendered page, and printed', async () => {
    const { page, problems } = await openPage(fixture.browser.context, fixture.server.url);
    try {
      // A first visit warms the server's caches (profile load and analysis), so the number
      // below is the UI's and the API's answer time, not the profile's parse time.
      await page.goto(`${fixture.server.url}#run=input_bound&tool=overview_page`);
      await settled(page, /tool=overview_page/);
      await page.goto('about:blank');

      const started = Date.now();
      await page.goto(`${fixture.server.url}#run=input_bound&tool=overview_page`);
      await page.locator('.page[data-tool="overview_page"][data-ready="true"]').waitFor();
      const wallMs = Date.now() - started;
      // The same, from the browser's own clock: navigation start to the page's ready mark.
      const browserMs = await page.evaluate(() => Math.round(performance.now()));
      console.log(`overview first render after navigation: ${wallMs} ms (browser clock: ${browserMs} ms)`);
      assertNoProblems(problems);
    } finally {
      await page.close();
    }
  });
});
