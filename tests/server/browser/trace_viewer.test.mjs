// The trace viewer page in a real headless Chromium over the fixture logdir (see
// tests/server/write_fixture_logdir.cc): its tracks are listed, W zooms in (the visible range
// shrinks), a click on an event shows it in the details pane, and search counts the matches;
// tracks and sections collapse and the URL remembers it; over a PyTorch capture with kernels
// (kineto_capture.mjs), the visible launches' flow arrows are drawn, a toggle hides them, and
// the selected event's stay; a pan shifts the rows drawn once and shows what drawing them anew
// shows. Run by ctest as ui_trace_viewer_browser_test.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { screenshotDirectory, shiftDrag, skipUnlessRunnable, useServedFixture, visit, unfoldCounters } from './harness.mjs';
import { writeKinetoCapture } from './kineto_capture.mjs';

skipUnlessRunnable();

const screenshotDir = screenshotDirectory();
const fixture = useServedFixture();

const visibleRange = (page) =>
  page.locator('.trace-viewer').evaluate((el) => [Number(el.dataset.startPs), Number(el.dataset.endPs)]);
const viewerData = (page, name) => page.locator('.trace-viewer').getAttribute(`data-${name}`);
// Waits until a data attribute of the viewer (set when a frame is drawn) has this value.
const waitForViewer = (page, name, value) =>
  page.waitForFunction(
    ([n, v]) => document.querySelector('.trace-viewer')?.getAttribute(`data-${n}`) === v,
    [name, String(value)],
  );
const viewerReady = async (page) => {
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]', { timeout: 15_000 });
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-rows'));
};

// Runs a test body on a fresh page showing the trace viewer at `hash`; the page must log no
// error; its screenshot is left as `name`.png.
const onViewer = (name, hash, body) =>
  visit(
    { context: fixture.browser.context, url: `${fixture.server.url}#${hash}`, ready: viewerReady, screenshotDir, name },
    body,
  );

test('trace viewer: tracks, zoom, details and search', () =>
  onViewer('trace_viewer', 'run=input_bound&host=trainer&tool=trace_viewer', async (page) => {
    // The host section with one track per thread.
    const sections = await page.locator('.trace-section-label').allTextContents();
    assert.ok(sections.length >= 1, `sections: ${sections}`);
    const tracks = await page.locator('.trace-track-label').allTextContents();
    assert.ok(tracks.includes('train') && tracks.includes('input_loader'), `tracks: ${tracks}`);

    // It opens on the steps: the 10 steps (110 ms apart; the capture cuts none, so all count),
    // the first three, with a little margin; the axis starts at a readable origin.
    assert.equal(await viewerData(page, 'steps'), '10');
    const [stepsStart, stepsEnd] = await visibleRange(page);
    assert.ok(stepsStart >= 0 && stepsStart < 15e9, `the view starts at the first step, not at ${stepsStart} ps`);
    const stepsSpan = stepsEnd - stepsStart;
    assert.ok(stepsSpan > 300e9 && stepsSpan < 360e9, `three steps are in view, not ${stepsSpan} ps`);
    assert.match(await page.locator('.trace-axis').getAttribute('aria-label'), /^Time axis: \d+ ms, \d+ ms/);
    await page.locator('.trace-button', { hasText: 'Reset' }).click();
    await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
    assert.match(await page.locator('.trace-axis').getAttribute('aria-label'), /^Time axis: 0 ms, /);

    // Reset shows the whole trace; then W zooms in around the middle.
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
    await shiftDrag(page, 100, 300, 5);
    assert.match(await page.locator('.trace-measure').textContent(), /^Measured: [\d.]+ (ps|ns|µs|ms|s)$/);
    // The range's events per name, like Perfetto's area selection.
    await page.waitForSelector('[data-testid="range-summary"]');
    const summary = await page.locator('table[aria-label="Events in the selected range"] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    assert.ok(summary.length >= 1, 'the range holds events');
    assert.ok(summary.every((r) => Number(r[1].replace(/,/g, '')) >= 1 && /\d (ps|ns|µs|ms|s)$/.test(r[2])), JSON.stringify(summary));
    assert.equal(await page.locator('[data-testid="range-summary"]').getAttribute('data-tracks'), '0'); // from a header: every track
    // Across the input loader's track only: its events alone, as Perfetto's area selection.
    const loaderBox = await page.locator('.trace-track-label', { hasText: /^input_loader$/ }).boundingBox();
    const canvasBox = await page.locator('.trace-canvas').boundingBox();
    await shiftDrag(page, 100, 300, loaderBox.y - canvasBox.y + 5);
    await page.waitForSelector('[data-testid="range-summary"][data-tracks="1"]');
    assert.match(await page.locator('[data-testid="range-summary"] p').textContent(), / on input_loader · /);
    const loaderNames = await page.locator('table[aria-label="Events in the selected range"] tbody td.name').allTextContents();
    assert.ok(loaderNames.length >= 1 && !loaderNames.includes('train'), JSON.stringify(loaderNames));

  }));

test('trace viewer: tracks and sections collapse, and the URL remembers it', () =>
  onViewer('trace_viewer_collapse', 'run=input_bound&host=trainer&tool=trace_viewer', async (page) => {
    // train: the step, its phases and their ops (3 rows); input_loader: Map and FileRead (2 rows).
    const rows0 = Number(await viewerData(page, 'rows'));
    assert.equal(rows0, 5);
    const train = page.locator('.trace-track-label', { hasText: /^train$/ });
    assert.equal(await train.getAttribute('aria-expanded'), 'true');
    await train.click();
    assert.equal(await train.getAttribute('aria-expanded'), 'false');
    assert.equal(Number(await viewerData(page, 'rows')), rows0 - 2, 'a collapsed track keeps its first row');
    const line = (await train.getAttribute('data-key')).slice(1);
    assert.match(await page.evaluate(() => window.location.hash), new RegExp(`collapsed=t${line}(&|$)`));

    // A reload (or a shared link) shows the track collapsed.
    await page.reload();
    await viewerReady(page);
    assert.equal(await page.locator('.trace-track-label', { hasText: /^train$/ }).getAttribute('aria-expanded'), 'false');
    assert.equal(Number(await viewerData(page, 'rows')), rows0 - 2);

    // The section folds every track; unfolding it brings back the tracks as they were.
    const section = page.locator('.trace-section-label').first();
    await section.click();
    assert.equal(await section.getAttribute('aria-expanded'), 'false');
    assert.equal(Number(await viewerData(page, 'rows')), 0);
    assert.equal(await page.locator('.trace-track-label').count(), 0);
    assert.match(await page.evaluate(() => window.location.hash), /collapsed=s0%2Ct\d+/);
    await page.locator('.trace-section-label').first().click();
    assert.equal(Number(await viewerData(page, 'rows')), rows0 - 2);
    await page.locator('.trace-track-label', { hasText: /^train$/ }).click();
    assert.equal(Number(await viewerData(page, 'rows')), rows0);
    assert.doesNotMatch(await page.evaluate(() => window.location.hash), /collapsed=/);

    // A track pinned moves to a group at the top, and the URL remembers it.
    const loader = page.locator('.trace-track-label', { hasText: /^input_loader$/ });
    await loader.hover();
    await loader.locator('.trace-pin').click();
    assert.deepEqual((await page.locator('.trace-section-label').allTextContents())[0], 'Pinned');
    const labels = await page.locator('.trace-labels > div').allTextContents();
    assert.equal(labels[1], 'input_loader', `labels: ${labels}`);
    assert.match(await page.evaluate(() => window.location.hash), /pinned=t\d+/);
    await page.locator('.trace-track-label', { hasText: /^input_loader$/ }).locator('.trace-pin').click();
    assert.notEqual((await page.locator('.trace-section-label').allTextContents())[0], 'Pinned');
  }));

test('trace viewer: flow arrows of visible events, a toggle, and the selected event highlighted', async () => {
  // 4 steps of 5 ops on one thread, each op launching a kernel: 20 launch flows.
  const capture = writeKinetoCapture(path.join(fixture.logdir, 'plugins/profile/flows/worker0.pt.trace.json'), {
    threads: 1,
    steps: 4,
    opsPerStep: 5,
  });
  assert.equal(capture.flows, 20);
  await onViewer('trace_viewer_flows', 'run=flows&host=worker0&tool=trace_viewer', async (page) => {
    // By default only the selected event's arrows: none before a selection.
    const toggle = page.locator('.trace-flows-toggle');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await page.locator('.trace-button', { hasText: 'Reset' }).click();
    await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
    await waitForViewer(page, 'flows-drawn', 0);
    assert.equal(await viewerData(page, 'selected-flows-drawn'), '0');

    // Selecting a launch (through search) draws its own flow, highlighted.
    await page.locator('.trace-search').fill('cudaLaunchKernel');
    await page.locator('.trace-search').press('Enter');
    await page.waitForFunction(() => document.querySelector('.trace-details-name')?.textContent === 'cudaLaunchKernel');
    await waitForViewer(page, 'selected-flows-drawn', 1);
    assert.equal(await viewerData(page, 'flows-drawn'), '0');
    assert.match(await page.locator('.trace-flows').textContent(), /launch: gemm_kernel/);

    // Asked for, every visible event's arrows: the other 19 in grey, the selected one on top.
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.match(await page.evaluate(() => window.location.hash), /flows=1/);
    await page.locator('.trace-button', { hasText: 'Reset' }).click();
    await page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
    await waitForViewer(page, 'flows-drawn', 19);
    await waitForViewer(page, 'selected-flows-drawn', 1);
    await toggle.click();
    await waitForViewer(page, 'flows-drawn', 0);
    assert.doesNotMatch(await page.evaluate(() => window.location.hash), /flows=/);

    // The GPU queue length of the stream, from the launches, is a counter track at the top of
    // the device's section, folded until asked for.
    assert.equal(await page.locator('.trace-counter-label').count(), 0, 'counters folded');
    assert.match(await page.locator('.trace-counter-group').first().getAttribute('title'), /^Queue · /);
    await unfoldCounters(page);
    const counters = await page.locator('.trace-counter-label').allTextContents();
    assert.ok(counters.some((c) => /^Queue · /.test(c)), `counters: ${counters}`);
  });
});

// The canvas's pixels, and how many of them are not blank.
const canvasPixels = (page) =>
  page.locator('.trace-canvas').evaluate((c) => {
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) ++inked;
    return { data: Array.from(data), inked };
  });
// The share of pixels whose colour differs by more than a blur would make it; with `columns`
// (the canvas's width in device pixels, and a first column), of those right of that column.
const differingShare = (a, b, columns = { width: 1, from: 0 }) => {
  let differing = 0;
  let counted = 0;
  for (let i = 0; i < a.length; i += 4) {
    if ((i / 4) % columns.width < columns.from) continue;
    ++counted;
    const d = Math.max(...[0, 1, 2, 3].map((k) => Math.abs(a[i + k] - b[i + k])));
    if (d > 48) ++differing;
  }
  return differing / counted;
};
// Two animation frames: whatever the view change before asked for is drawn.
const drawn = (page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

test('trace viewer: a pan shifts the rows drawn once, and shows what drawing them anew shows', async () => {
  writeKinetoCapture(path.join(fixture.logdir, 'plugins/profile/pan/worker0.pt.trace.json'), { threads: 4, steps: 8, opsPerStep: 6 });
  await onViewer('trace_viewer_panned', 'run=pan&host=worker0&tool=trace_viewer', async (page) => {
    const idle = () => page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
    await page.locator('.trace-button', { hasText: 'Reset' }).click();
    await idle();
    await page.locator('.trace-canvas').hover();
    // About 1/6 of the trace: room to pan. Each press waits for its reply, so the reply in hand
    // is the last zoom's: a reply asked two presses earlier would span the whole trace (it
    // covers the view at 1.25× its density), and no pan would then need another.
    for (let i = 0; i < 8; ++i) {
      await page.keyboard.press('w');
      await idle();
    }
    await drawn(page);
    assert.equal(await viewerData(page, 'rows-bitmaps'), '0', 'a zoom draws the rows directly');
    const [start0] = await visibleRange(page);

    // Sideways wheel events, one a frame, as a touchpad pans: 80 × 25 px, past half the
    // bitmap's margin (the bitmap moves and draws the strips coming in) and past a span and a
    // half (the next reply comes, and the bitmap keeps what it drew).
    let replies = 0;
    const countReplies = (request) => {
      if (request.url().includes('/api/trace?')) ++replies;
    };
    page.on('request', countReplies);
    await page.locator('.trace-canvas').evaluate(async (canvas) => {
      const rect = canvas.getBoundingClientRect();
      for (let i = 0; i < 80; ++i) {
        canvas.dispatchEvent(new WheelEvent('wheel', { deltaX: 25, clientX: rect.left + 300, clientY: rect.top + 40, bubbles: true, cancelable: true }));
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
    });
    // The viewer gathers a pan's view changes for a moment before it asks: wait for the ask,
    // then for its reply (idle alone can come before the ask).
    for (const deadline = Date.now() + 10_000; replies < 1 && Date.now() < deadline; ) await page.waitForTimeout(50);
    await idle();
    page.off('request', countReplies);
    assert.ok(replies >= 1, 'the pan asked for the next reply');
    await drawn(page);
    const [start1] = await visibleRange(page);
    assert.ok(start1 > start0, `the view moved right: ${start0} → ${start1}`);
    assert.equal(await viewerData(page, 'rows-bitmaps'), '1', 'the pan drew the rows once and shifted them');
    assert.ok(Number(await viewerData(page, 'rows-strips')) >= 2, `strips drawn: ${await viewerData(page, 'rows-strips')}`);
    const panned = await canvasPixels(page);
    await page.screenshot({ path: path.join(screenshotDir, 'trace_viewer_panned_bitmap.png') });
    assert.ok(panned.inked > panned.data.length / 4 / 10, `boxes are drawn: ${panned.inked} pixels`);

    // A search draws every row anew (a search changes how rows look): with no match, the same
    // picture, but for less than a pixel of shift at the boxes' edges. The names of boxes cut
    // by the right edge are shortened there as a fresh drawing does, not cut mid-letter where
    // the view ends (which made 1.5 % of the last 30 columns' pixels differ).
    await page.locator('.trace-search').fill('no_such_event');
    await page.locator('.trace-search').press('Enter');
    await waitForViewer(page, 'matches', 0);
    await drawn(page);
    assert.equal((await visibleRange(page))[0], start1);
    assert.equal(await viewerData(page, 'rows-bitmaps'), '1', 'drawn directly');
    const anew = await canvasPixels(page);
    assert.equal(anew.data.length, panned.data.length);
    const share = differingShare(panned.data, anew.data);
    assert.ok(share < 0.005, `${(share * 100).toFixed(2)} % of the pixels differ between the panned and the fresh drawing`);
    const width = await page.locator('.trace-canvas').evaluate((c) => c.width);
    const edge = differingShare(panned.data, anew.data, { width, from: width - 30 });
    assert.ok(edge < 0.005, `${(edge * 100).toFixed(2)} % of the pixels of the last 30 columns differ`);
  });
});

// At 1/200 of a 100 M-event run a reply of every row is 80 MB: the viewer asks for the events
// of the tracks in sight (and a screen around them) only; a short scroll draws from the reply in
// hand while the next is asked for ahead, and a jump to the bottom shows its tracks as loading
// until theirs comes.
test('trace viewer: a reply carries the events of the tracks in sight, and a scroll asks for more', async () => {
  writeKinetoCapture(path.join(fixture.logdir, 'plugins/profile/tall/worker0.pt.trace.json'), { threads: 80, steps: 2, opsPerStep: 3 });
  await onViewer('trace_viewer_tracks_in_sight', 'run=tall&host=worker0&tool=trace_viewer', async (page) => {
    const idle = () => page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
    // The whole trace: every thread's steps in view (each thread starts 7 µs after the last).
    await page.locator('.trace-button', { hasText: 'Reset' }).click();
    await idle();
    // The last viewport asked for (the first, one pixel wide, only tells the tracks).
    const lastReply = () =>
      page.evaluate(async () => {
        const asked = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/trace?') && !e.name.includes('width_px=1&'));
        const url = asked[asked.length - 1].name;
        const text = await (await fetch(url)).text();
        const whole = new URL(url);
        whole.searchParams.delete('lines');
        const wholeBytes = (await (await fetch(whole)).text()).length;
        return { url, bytes: text.length, wholeBytes, reply: JSON.parse(text) };
      });
    const tracksOf = (reply) => reply.sections.flatMap((s) => s.tracks);
    const withEvents = (reply) => new Set(tracksOf(reply).filter((t) => !t.left_out).map((t) => t.line));
    // The bottom track on the page, by its label.
    const bottomLine = await page.evaluate(() => {
      const labels = [...document.querySelectorAll('.trace-track-label')];
      labels.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return Number(labels[labels.length - 1].dataset.key.slice(1));
    });

    const top = await lastReply();
    assert.match(top.url, /[?&]lines=/);
    const topTracks = tracksOf(top.reply);
    assert.ok(topTracks.length >= 80, `every track is listed: ${topTracks.length}`);
    assert.ok(topTracks.every((t) => t.rows.length >= 1), 'with its rows');
    const topLines = withEvents(top.reply);
    assert.ok(topLines.size >= 3 && topLines.size < topTracks.length / 2, `events on ${topLines.size} of ${topTracks.length} tracks`);
    assert.ok(!topLines.has(bottomLine), 'the bottom track is out of sight');
    assert.ok(top.bytes < top.wholeBytes / 2, `${top.bytes} bytes, every track's ${top.wholeBytes}`);

    // The most tracks in sight without events on any frame from now on (hatched as loading).
    const watchAwaited = () =>
      page.evaluate(() => {
        const viewer = document.querySelector('.trace-viewer');
        window.mostAwaited = 0;
        new MutationObserver(() => {
          window.mostAwaited = Math.max(window.mostAwaited, Number(viewer.dataset.tracksAwaited ?? 0));
        }).observe(viewer, { attributes: true, attributeFilter: ['data-tracks-awaited'] });
      });
    const mostAwaited = () => page.evaluate(() => window.mostAwaited);
    const scrollBy = (dy) => page.locator('.trace-scroller').evaluate((el, d) => (el.scrollTop += d), dy);
    const screen = await page.locator('.trace-scroller').evaluate((el) => el.clientHeight);
    // A screen and a half down, a step at a time as a wheel scrolls: drawn from the reply in
    // hand, which carries a screen below the view, while the next is asked at the first step
    // for two screens ahead (asked only once tracks in sight lacked events, some showed none
    // for a reply's time).
    await watchAwaited();
    for (let i = 0; i < 18; ++i) {
      await scrollBy(screen / 12);
      await drawn(page);
    }
    await idle();
    assert.equal(await mostAwaited(), 0, 'no track in sight waited for its events');
    assert.equal(await viewerData(page, 'tracks-awaited'), '0');

    // A jump to the bottom outruns the replies: its tracks are hatched until theirs lands.
    await page.locator('.trace-scroller').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForFunction(
      (line) =>
        performance
          .getEntriesByType('resource')
          .some((e) => e.name.includes('/api/trace?') && new URL(e.name).searchParams.get('lines')?.split(',').some((r) => {
            const [a, b = a] = r.split('-').map(Number);
            return a <= line && line <= b;
          })),
      bottomLine,
    );
    await idle();
    await drawn(page);
    assert.ok((await mostAwaited()) > 0, 'the bottom tracks were drawn as loading');
    assert.equal(await viewerData(page, 'tracks-awaited'), '0', 'and drawn once their events came');
    const bottom = await lastReply();
    const bottomLines = withEvents(bottom.reply);
    assert.ok(bottomLines.has(bottomLine), `the bottom track's events came: ${[...bottomLines]}`);
    const bottomTrack = tracksOf(bottom.reply).find((t) => t.line === bottomLine);
    assert.ok(bottomTrack.rows.some((r) => r.events.length + r.merged.length > 0), 'and it has boxes');
    assert.ok([...topLines].some((l) => !bottomLines.has(l)), 'the top tracks are left out now');
    await drawn(page);
    const pixels = await canvasPixels(page);
    assert.ok(pixels.inked > pixels.data.length / 4 / 20, `boxes are drawn at the bottom: ${pixels.inked} pixels`);
  });
});
