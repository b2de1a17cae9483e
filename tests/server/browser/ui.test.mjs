// The web UI in a real headless Chromium against `mlprof serve` over a fixture logdir
// (tests/server/write_fixture_logdir.cc says what it holds). Run by ctest as ui_browser_test.
// Every visit also checks that the page logged no error and sent no request off 127.0.0.1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  launchBrowser,
  makeFixtureLogdir,
  openPage,
  screenshotDirectory,
  settled,
  skipUnlessRunnable,
  startServer,
  visit as visitPage,
} from './harness.mjs';

skipUnlessRunnable();

const screenshotDir = screenshotDirectory();

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

// Opens the UI at `hash`, waits for the view to settle, runs `check`, and asserts that nothing
// went wrong on the way (harness.mjs).
const visit = (hash, check) =>
  visitPage({ context: browser.context, url: `${server.url}${hash}`, ready: settled, screenshotDir }, check);

async function screenshot(page, name) {
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

// The visible rows of the table labelled `label`, as arrays of cell texts.
async function tableRows(page, label) {
  return page.locator(`table[aria-label="${label}"] tbody tr`).evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim())),
  );
}

describe('run, host and tool selection', () => {
  test('opens the newest run first, lists every run and every tool, those without data greyed', async () => {
    await visit('', async (page) => {
      assert.deepEqual(await page.locator('#run-select option').allTextContents(), ['input_bound', 'healthy']);
      assert.equal(await page.locator('#run-select').inputValue(), 'input_bound');
      assert.equal(await page.locator('#host-select').inputValue(), 'trainer'); // the only host
      assert.deepEqual(await page.locator('.tool-nav a:not(.no-data)').allTextContents(), [
        'Overview',
        'Critical path',
        'Input pipeline',
        'Framework op stats',
        'Input pipeline bottleneck',
        'Trace viewer',
      ]);
      assert.ok((await page.locator('.tool-nav a.no-data').allTextContents()).includes('Kernel stats'));
      assert.equal(await page.locator('.tool-nav a[aria-current="page"]').textContent(), 'Overview');
      assert.match(page.url(), /#run=input_bound&host=trainer&tool=overview_page$/);
    });
  });

  test('a run with two hosts offers each host and all of them', async () => {
    await visit('#run=healthy', async (page) => {
      assert.deepEqual(await page.locator('#host-select option').allTextContents(), ['All hosts', 'trainer', 'worker1']);
      assert.equal(await page.locator('#host-select').inputValue(), '');
      await page.selectOption('#host-select', 'worker1');
      await settled(page, /host=worker1/);
      assert.match(await page.locator('.page-header').textContent(), /worker1/);
      await page.selectOption('#run-select', 'input_bound');
      await settled(page, /run=input_bound/);
      assert.equal(await page.locator('#host-select').inputValue(), 'trainer');
    });
  });

  test('tools open from the sidebar and the URL keeps the choice', async () => {
    await visit('#run=input_bound', async (page) => {
      await page.click('.tool-nav a[data-tool="framework_op_stats"]');
      await settled(page, /tool=framework_op_stats/);
      await page.reload();
      await settled(page, /tool=framework_op_stats/);
      assert.equal(await page.locator('.tool-nav a[aria-current="page"]').textContent(), 'Framework op stats');
    });
  });

  test('every page is headed by its tool\'s title from the tool list, and pages with a table export it as CSV', async () => {
    const tools = await (await fetch(`${server.url}api/runs/input_bound/tools?host=trainer`)).json();
    const withData = tools.tools.filter((t) => t.available);
    assert.ok(withData.length >= 5, `tools: ${withData.map((t) => t.name)}`);
    for (const tool of withData)
      await visit(`#run=input_bound&host=trainer&tool=${tool.name}`, async (page) => {
        await page.waitForSelector('.page[data-ready="true"]');
        assert.equal(await page.locator('.page-header h1').textContent(), tool.title, tool.name);
        assert.equal(await page.title(), `${tool.title} · input_bound · mlprof`);
        const csv = page.locator('.page-header [data-testid="export-csv"]');
        if (await csv.count()) assert.match(await csv.getAttribute('href'), new RegExp(`^/api/csv\\?.*tool=${tool.name}`));
      });
  });

  test('an unknown run in the URL falls back to the newest run', async () => {
    await visit('#run=no_such_run&tool=overview_page', async (page) => {
      assert.equal(await page.locator('#run-select').inputValue(), 'input_bound');
    });
  });

  test('a run written while the server runs appears after a refresh, without a restart', async () => {
    const runs = path.join(logdir, 'plugins', 'profile');
    fs.cpSync(path.join(runs, 'healthy'), path.join(runs, 'zz_new_run'), { recursive: true });
    try {
      await visit('#run=input_bound', async (page) => {
        await page.click('button[aria-label="Look for new runs"]');
        await page.waitForFunction(() => [...document.querySelectorAll('#run-select option')].some((o) => o.value === 'zz_new_run'));
        assert.equal((await page.locator('#run-select option').allTextContents())[0], 'zz_new_run');
      });
    } finally {
      fs.rmSync(path.join(runs, 'zz_new_run'), { recursive: true, force: true });
    }
  });
});

describe('overview page', () => {
  test('says the run is highly input-bound and shows its steps, top ops and environment', async () => {
    await visit('#run=input_bound&tool=overview_page', async (page) => {
      const verdict = page.locator('.verdict');
      assert.equal(await verdict.getAttribute('data-verdict'), 'HIGHLY');
      assert.match(await verdict.textContent(), /HIGHLY input-bound: 60\.\d% of the step time is spent waiting for input/);
      // The fixture's 10 steps wait 60 to 64 ms for input and compute 40 ms after it: input bounds
      // the step, and the step without it is the 40 ms of compute.
      assert.match(await page.locator('[data-testid="bottleneck"]').textContent(), /^The step is bound by input.* -> 40\.000 ms a step\.$/);
      assert.match(await page.locator('[data-testid="step-count"]').textContent(), /^10 steps, marked by/);
      assert.match(await page.locator('[data-testid="avg-step-time"]').textContent(), /^10[0-4]\.?\d* ms$/);
      // The step-time graph is drawn, with input among its series.
      await page.waitForSelector('.chart canvas');
      assert.ok((await page.locator('.chart .u-legend').textContent()).includes('Input'));
      const top = await tableRows(page, 'Top ops');
      assert.equal(top.length, 9);
      // Self %, self time, type, op (the cumulative % is among the optional columns).
      assert.deepEqual(top[0].slice(2), ['Prefetch', 'Iterator::Prefetch']);
      assert.ok(top.some((row) => row[3] === 'aten::mm'));
      assert.match(await page.locator('.panel:has(h2:text("Run environment"))').textContent(), /CPU/);
      assert.match(await page.locator('.recommendations').textContent(), /FileRead/);
      await screenshot(page, 'overview_page');
    });
  });

  test('says the healthy run is not input-bound', async () => {
    await visit('#run=healthy&host=trainer&tool=overview_page', async (page) => {
      assert.equal(await page.locator('.verdict').getAttribute('data-verdict'), 'NOT');
    });
  });
});

describe('input pipeline analyzer', () => {
  test('shows the summary, device-side statistics, host-side breakdown and input ops', async () => {
    await visit('#run=input_bound&tool=input_pipeline_analyzer', async (page) => {
      assert.match(await page.locator('.verdict').textContent(), /HIGHLY input-bound/);
      const device = await page.locator('.panel:has(h2:text("Device-side analysis"))').textContent();
      assert.match(device, /Steps10/); // all of the fixture's 10 steps
      assert.match(device, /Waiting for input6\d(\.\d+)? ms average/);
      assert.match(
        await page.locator('[aria-label="Host-side input time by category"]').textContent(),
        /Reading data from files in advance500 ms · 86\.2%/,
      );
      // The input op table is folded away until asked for.
      assert.equal(await page.locator('table[aria-label="Input op statistics"]').isVisible(), false);
      await page.click('details.input-ops > summary');
      const rows = await tableRows(page, 'Input op statistics');
      assert.deepEqual(rows[0], [
        'Iterator::Prefetch::Map::FileRead',
        '10',
        '500 ms',
        '86.2%',
        '500 ms',
        '86.2%',
        'Reading data from files in advance',
      ]);
      await screenshot(page, 'input_pipeline_analyzer');
    });
  });
});

describe('framework op stats', () => {
  test('shows pies, a sortable and filterable op table, and exports CSV', async () => {
    await visit('#run=input_bound&tool=framework_op_stats', async (page) => {
      assert.deepEqual(await page.locator('.pie figcaption').allTextContents(), [
        'Self time on the host, by op',
        'Self time on the host, by op type',
      ]);
      let rows = await tableRows(page, 'Framework ops');
      assert.equal(rows.length, 9);
      const mm = rows.find((r) => r[3] === 'aten::mm');
      assert.deepEqual(mm.slice(0, 5), ['3', 'Host', 'aten::mm', 'aten::mm', '10']);

      await page.click('table[aria-label="Framework ops"] th button:text("Count")'); // largest first: all 10
      await page.click('table[aria-label="Framework ops"] th button:text("Total time")');
      rows = await tableRows(page, 'Framework ops');
      assert.equal(rows[0][3], 'Iterator::Prefetch');

      await page.fill('input[aria-label="Filter Framework ops"]', 'aten');
      rows = await tableRows(page, 'Framework ops');
      assert.deepEqual(rows.map((r) => r[3]).sort(), ['aten::addmm', 'aten::mm', 'aten::relu']);
      await screenshot(page, 'framework_op_stats');

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
      assert.equal(download.suggestedFilename(), 'input_bound_trainer_framework_op_stats.csv');
      const csv = fs.readFileSync(await download.path(), 'utf8').split('\n');
      assert.match(csv[0], /^rank,host_or_device,type,operation,occurrences,total_time_ms/);
      assert.ok(csv.some((line) => line.startsWith('3,Host,aten::mm,aten::mm,10,160,')), csv.join('\n'));
    });
  });

  test('includes idle time when asked', async () => {
    await visit('#run=input_bound&tool=framework_op_stats', async (page) => {
      await page.check('#include-idle');
      await settled(page, /include_idle=1/);
      const rows = await tableRows(page, 'Framework ops');
      assert.ok(rows.some((r) => r[3] === 'IDLE'), JSON.stringify(rows));
      assert.equal(await page.locator('#include-idle').isChecked(), true);
      assert.match(await page.locator('[data-testid="export-csv"]').getAttribute('href'), /include_idle=1/);
    });
  });
});

describe('input pipeline bottleneck', () => {
  test('draws the iterator graph with the critical path in bold and names the bottleneck', async () => {
    await visit('#run=input_bound&tool=tf_data_bottleneck_analysis', async (page) => {
      const critical = await page.locator('.iterator[data-critical] .iterator-type').allTextContents();
      assert.deepEqual(critical, ['Prefetch', 'Map', 'FileRead']);
      assert.equal(await page.locator('.iterator.critical').first().evaluate((e) => getComputedStyle(e).fontWeight), '700');
      assert.equal(await page.locator('.iterator.bottleneck .iterator-type').textContent(), 'FileRead');
      assert.match(await page.locator('.notice').first().textContent(), /held up by Iterator::Prefetch::Map::FileRead/);
      await screenshot(page, 'tf_data_bottleneck_analysis');
    });
  });
});

describe('errors', () => {
  test('an API error shows as a message, not a blank page', async () => {
    const { page, problems } = await openPage(browser.context, server.url);
    try {
      await page.goto(`${server.url}#run=input_bound&tool=framework_op_stats&include_idle=maybe`);
      await settled(page);
      assert.match(await page.locator('.notice-error').textContent(), /option 'include_idle' takes 1 or 0/);
      assert.deepEqual(problems.external, []);
    } finally {
      await page.close();
    }
  });
});

// A real TensorFlow GPU profile (8 GPUs, BERT), when the shared test data is at hand.
describe('a TensorFlow GPU profile', () => {
  const file = path.join(process.env.MLPROF_TESTDATA ?? '', 'tensorflow', 'gpu_multi_worker.xplane.pb');
  const skip = fs.existsSync(file) ? false : `no ${file} (the shared test data is not beside the project)`;
  let tfLogdir;
  let tfServer;

  before(async () => {
    if (skip) return;
    tfLogdir = fs.mkdtempSync('/tmp/mlprof-ui-tf-');
    const run = path.join(tfLogdir, 'plugins', 'profile', 'bert_gpu');
    fs.mkdirSync(run, { recursive: true });
    fs.copyFileSync(file, path.join(run, 'worker0.xplane.pb'));
    tfServer = await startServer(tfLogdir);
  });

  after(async () => {
    if (tfServer) assert.equal(await tfServer.stop(), 0);
    if (tfLogdir) fs.rmSync(tfLogdir, { recursive: true, force: true });
  });

  async function visitTf(hash, check) {
    const saved = server;
    server = tfServer; // visit() opens the current server
    try {
      await visit(hash, check);
    } finally {
      server = saved;
    }
  }

  test('every tool page loads, with device data', { skip }, async () => {
    await visitTf('#run=bert_gpu&tool=overview_page', async (page) => {
      assert.equal(await page.locator('.verdict').getAttribute('data-verdict'), 'NOT');
      assert.match(await page.locator('[data-testid="step-count"]').textContent(), /marked by tf\.function calls/);
      assert.match(await page.locator('.panel:has(h2:text("Run environment"))').textContent(), /GPU/);
      assert.match(await page.locator('.panel:has(h2:text("Top"))').locator('h2').textContent(), /on the device/);
      await screenshot(page, 'tensorflow_overview_page');
    });
    await visitTf('#run=bert_gpu&tool=input_pipeline_analyzer', async (page) => {
      assert.match(await page.locator('.verdict').textContent(), /NOT input-bound/);
    });
    await visitTf('#run=bert_gpu&tool=framework_op_stats', async (page) => {
      assert.equal(await page.locator('.pie').count(), 4);
      assert.ok((await tableRows(page, 'Framework ops')).some((r) => r[1] === 'Device'));
      await screenshot(page, 'tensorflow_framework_op_stats');
    });
    await visitTf('#run=bert_gpu&tool=tf_data_bottleneck_analysis', async (page) => {
      assert.ok((await page.locator('.iterator').count()) >= 2);
    });
  });
});
