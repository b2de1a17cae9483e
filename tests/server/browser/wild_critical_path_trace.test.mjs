// The critical path drawn in the trace viewer on profiles from other projects
// (../shared/testdata/wild): OWLv2 on an H100 and HTA's AlexNet critical-path trace. "Show in
// trace" on the critical path page and on the overview's headline opens the viewer on the first
// step with the path drawn: the events on it outlined, arrows between them; the toggle hides and
// shows it. Screenshots at 1280 and 1600 px go to the build tree
// (tests/server/screenshots/wild_critical_path_trace_*.png). Run by ctest as
// ui_wild_critical_path_trace_browser_test; skips when the shared test data is absent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { screenshotDirectory, settled, skipUnlessRunnable, useServedFixture, visit as visitPage, wildFilesOrSkip, logdirOfCopies } from './harness.mjs';

skipUnlessRunnable();

const files = wildFilesOrSkip({
  owlv2: ['tracelens', 'kineto_h100', 'tracelens__traces_h100_google_owlv2-large-patch14-ensemble__1016001.json.gz'],
  alexnet: ['hta', 'critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz'],
});

const screenshotDir = screenshotDirectory();
const WIDTHS = [1280, 1600];

const served = useServedFixture(() =>
  logdirOfCopies('mlprof-wild-critical-path-trace-', [
    ['owlv2', 'gpu0', files.owlv2],
    ['alexnet', 'rank0', files.alexnet],
  ]),
);

const visit = (hash, check, name, width) =>
  visitPage(
    { context: served.browser.context, url: `${served.server.url}${hash}`, ready: (page) => settled(page, /./, 60_000), screenshotDir, name, width },
    check,
  );
const ready = (page) => page.waitForSelector('.page[data-ready="true"]', { timeout: 60_000 });
const api = (page, query) => page.evaluate(async (q) => (await fetch(`/api/data?${q}`)).json(), query);
const viewer = (page, name) => page.locator('.trace-viewer').getAttribute(name);

// The viewer with the path drawn: waits until a frame has outlined some of it.
async function pathDrawn(page) {
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 60_000 });
  await page.waitForFunction(() => Number(document.querySelector('.trace-viewer')?.getAttribute('data-path-outlined')) > 0, null, { timeout: 60_000 });
  return { outlined: Number(await viewer(page, 'data-path-outlined')), arrows: Number(await viewer(page, 'data-path-arrows')) };
}

// The events of a step's path segments in the tool's JSON, the longest first.
function pathEvents(step) {
  return [...step.path.segments].filter((s) => s.event !== undefined).sort((a, b) => b.duration_ms - a.duration_ms);
}

describe('the critical path in the trace viewer', () => {
  for (const run of ['owlv2', 'alexnet'])
    test(`${run}: "Show in trace" opens the first step with the path's events outlined and arrows between them`, async () => {
      for (const width of WIDTHS)
        await visit(`#run=${run}&tool=critical_path`, async (page) => {
          await ready(page);
          const data = await api(page, `run=${run}&host=&tool=critical_path`);
          const first = data.steps[0];
          const events = pathEvents(first);
          assert.ok(events.length > 0, 'the first step has segments with events');
          await page.locator('[data-testid="show-path-in-trace"]').click();
          const drawn = await pathDrawn(page);
          const state = Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
          assert.equal(state.step, String(first.step_num));
          assert.equal(state.critical_path, '1');
          assert.equal(await page.locator('.trace-path-toggle').getAttribute('aria-pressed'), 'true');
          // On the step's path, whether the trace marks the step or the path found it.
          assert.doesNotMatch(await page.locator('.trace-details').textContent(), /has no step/);
          assert.ok(drawn.arrows >= 1, `${drawn.arrows} arrows`);
          // The longest segment drawn is an event on the path of a step in view.
          const longest = Number(await viewer(page, 'data-path-longest-event'));
          const onPaths = new Set(data.steps.flatMap((s) => pathEvents(s).map((e) => e.event)));
          assert.ok(onPaths.has(longest), `event ${longest} is on a path`);
          if (data.steps.length === 1) assert.equal(longest, events[0].event, "the step's longest segment");
        }, `wild_critical_path_trace_${run}_${width}`, width);
    });

  test('owlv2: the toggle hides the path and draws it again', async () => {
    await visit('#run=owlv2&host=gpu0&tool=trace_viewer&critical_path=1', async (page) => {
      await pathDrawn(page);
      await page.locator('.trace-path-toggle').click();
      await page.waitForFunction(() => document.querySelector('.trace-viewer')?.getAttribute('data-path-outlined') === '0');
      assert.doesNotMatch(page.url(), /critical_path=1/);
      await page.locator('.trace-path-toggle').click();
      assert.ok((await pathDrawn(page)).outlined > 0);
    });
  });

  test("owlv2: the overview's headline shows the path in the trace", async () => {
    await visit('#run=owlv2&tool=overview_page', async (page) => {
      await ready(page);
      await page.locator('[data-testid="show-path-in-trace"]').click();
      assert.ok((await pathDrawn(page)).outlined > 0);
    }, 'wild_critical_path_trace_owlv2_from_overview_1280', 1280);
  });
});
