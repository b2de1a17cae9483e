// The trace viewer while panning, in a real headless Chromium (the issue asks for 55 fps at
// 100 M events): `mlprof serve` over a capture of EVENTS events (16 CPU threads of ops that
// launch kernels on 16 streams, flows on), the viewer at the whole trace and zoomed to 1/200 of
// it, panned by one wheel event per animation frame for a few seconds. Frame times are the gaps
// between requestAnimationFrame callbacks; draw time is the viewer's own drawing per frame.
// Prints one line per zoom: events, frames, p50/p95 frame time, fps, p50/p95 draw time, the
// replies that landed while panning (a reply is parsed and laid out at once), and the CPU time
// the browser's and the server's processes used per frame: on a busy machine frame times also
// count the time other processes had the cores, the CPU time does not. Then the last reply of
// the zoomed pan, once landed: its size, the server's time, and the page's parsing and layout
// of it (a reply lands as one long task, which a few seconds of panning may not meet), beside
// the same view with every track's events (the viewer asks for the tracks in sight only). Last,
// a vertical scroll: how often tracks in sight waited for their events, and for how long.
//
// Up to FILE_EVENTS events the capture is one PyTorch trace. Beyond, one file cannot hold it:
// Kineto's JSON of 100 M events would be about 12 GB, and one XSpace message cannot pass
// protobuf's 2 GiB. So the run is several hosts, as a multi-host run is: one capture of
// FILE_EVENTS events converted to an .xplane.pb (about 320 MB) and linked under each host's
// name, and the viewer opens the whole run (every host's sections). The server's resident
// memory once the viewer is open is printed too.
//   trace_viewer_pan_bench [EVENTS]   (default 1000000; run through the wrapper CMake writes,
//                                      which sets MLPROF and MLPROF_UI_DIR)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, loadPlaywright, openPage, startServer } from '../tests/server/browser/harness.mjs';
import { writeKinetoCapture } from '../tests/server/browser/kineto_capture.mjs';

const NAME = 'trace_viewer_pan_bench';
const SECONDS = 4;

if (!fs.existsSync('/usr/bin/chromium') || !loadPlaywright()) {
  console.log(`${NAME}: skipped (needs Debian chromium and playwright-core in ui/node_modules)`);
  process.exit(0);
}

const events = Number(process.argv[2] ?? 1_000_000);
const FILE_EVENTS = 10_000_000;
const hosts = Math.max(1, Math.ceil(events / FILE_EVENTS));
const threads = 16;
const opsPerStep = 50;
const steps = Math.max(1, Math.round(events / hosts / threads / (1 + 3 * opsPerStep)));
const logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-pan-bench-'));

// CPU seconds (user + system) used so far by this process's descendants: Chromium's processes
// and mlprof serve.
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
function descendantsCpuSeconds() {
  const parent = new Map();
  const ticks = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(pid), Number(fields[1]));
      ticks.set(Number(pid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  for (const [pid, t] of ticks) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === process.pid) {
        total += t;
        break;
      }
    }
  }
  return total / ticksPerSecond;
}

// The resident memory of the `mlprof serve` this process started, in GB.
function serverResidentGb() {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      if (!/^PPid:\s+(\d+)$/m.test(status) || Number(status.match(/^PPid:\s+(\d+)$/m)[1]) !== process.pid) continue;
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('serve')) continue;
      return Number(status.match(/^VmRSS:\s+(\d+) kB$/m)?.[1] ?? 0) / 1e6;
    } catch {
      // gone meanwhile
    }
  }
  return NaN;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

// Pans for SECONDS, one wheel event (deltaX) per frame, turning back at either end.
async function pan(page) {
  const cpu0 = descendantsCpuSeconds();
  const result = await page.evaluate(async (seconds) => {
    const viewer = document.querySelector('.trace-viewer');
    const canvas = document.querySelector('.trace-canvas');
    const rect = canvas.getBoundingClientRect();
    const frames = [];
    const draws = [];
    const flowDraws = [];
    let direction = 1;
    let lastStart = -1;
    const replies = []; // what taking each reply that landed cost the page, ms
    let lastReply = viewer.dataset.acceptMs;
    return new Promise((resolve) => {
      const t0 = performance.now();
      const frame = (now) => {
        frames.push(now);
        draws.push(Number(viewer.dataset.drawMs ?? 0));
        flowDraws.push(Number(viewer.dataset.flowsMs ?? 0));
        if (viewer.dataset.acceptMs !== lastReply) replies.push(Number((lastReply = viewer.dataset.acceptMs)));
        const start = Number(viewer.dataset.startPs);
        if (start === lastStart) direction = -direction; // at an end of the trace
        lastStart = start;
        canvas.dispatchEvent(
          new WheelEvent('wheel', { deltaX: 12 * direction, deltaY: 0, clientX: rect.left + 300, clientY: rect.top + 40, bubbles: true, cancelable: true }),
        );
        if (now - t0 < seconds * 1000) requestAnimationFrame(frame);
        else resolve({ frames, draws, flowDraws, replies });
      };
      requestAnimationFrame(frame);
    });
  }, SECONDS);
  result.cpuSeconds = descendantsCpuSeconds() - cpu0;
  return result;
}

function report(events, label, { frames, draws, flowDraws, replies, cpuSeconds }) {
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const drawn = draws.slice(2).sort((a, b) => a - b);
  const flowsDrawn = flowDraws.slice(2).sort((a, b) => a - b);
  const fps = (frames.length - 1) / ((frames[frames.length - 1] - frames[0]) / 1000);
  console.log(
    `${NAME}: ${events.toLocaleString('en')} events, ${label}: ${frames.length} frames, frame time p50 ${percentile(gaps, 0.5).toFixed(1)} ms, ` +
      `p95 ${percentile(gaps, 0.95).toFixed(1)} ms, ${fps.toFixed(1)} fps; draw p50 ${percentile(drawn, 0.5).toFixed(1)} ms, ` +
      `p95 ${percentile(drawn, 0.95).toFixed(1)} ms (of which flow arrows p50 ${percentile(flowsDrawn, 0.5).toFixed(1)} ms, ` +
      `p95 ${percentile(flowsDrawn, 0.95).toFixed(1)} ms); ${replies.length} replies taken (the slowest in ${Math.max(0, ...replies).toFixed(0)} ms); ` +
      `CPU ${((cpuSeconds * 1000) / frames.length).toFixed(1)} ms per frame`,
  );
}

// Vertical scrolling at 1/200 of the trace: a screen and a half down a step a frame (the tracks
// ahead are asked for before they come into sight), then a jump to the bottom (its tracks are
// hatched until their events come): the frames that showed tracks without events, and the time
// from the jump to the first frame with every track in sight drawn.
async function scroll(page, events, idle) {
  await page.locator('.trace-scroller').evaluate((el) => (el.scrollTop = 0));
  await idle();
  const result = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const viewer = document.querySelector('.trace-viewer');
        const scroller = document.querySelector('.trace-scroller');
        const screen = scroller.clientHeight;
        const awaited = () => Number(viewer.dataset.tracksAwaited ?? 0);
        let steps = 0;
        let waiting = 0;
        let jumped = 0;
        const frame = (now) => {
          if (awaited() > 0 && !jumped) ++waiting;
          if (steps < 18) {
            ++steps;
            scroller.scrollTop += screen / 12;
          } else if (!jumped) {
            jumped = now;
            scroller.scrollTop = scroller.scrollHeight;
          } else if (awaited() === 0 && !viewer.hasAttribute('data-loading')) {
            const asked = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/trace?'));
            const last = asked[asked.length - 1];
            resolve({
              waiting,
              jumpMs: now - jumped,
              screen,
              height: scroller.scrollHeight,
              lastLines: new URL(last.name).searchParams.get('lines'),
              lastMs: last.responseEnd - last.startTime,
              lastBytes: last.decodedBodySize,
            });
            return;
          }
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
  console.log(
    `${NAME}: ${events.toLocaleString('en')} events, 1/200 of the trace, scrolled (${result.height} px of tracks, ${result.screen} px in sight): ` +
      `${result.waiting} of 18 frames showed tracks still without events; after a jump to the bottom every track in sight was drawn in ${result.jumpMs.toFixed(0)} ms ` +
      `(its reply: events on lines ${result.lastLines}, ${(result.lastBytes / 1e6).toFixed(1)} MB in ${result.lastMs.toFixed(0)} ms)`,
  );
}

// The last viewport reply the pan asked for, once it has landed: its size, how long the server
// took to answer it and what taking it cost the page (a large reply lands as one long task).
// Then the same view with every track's events (no `lines`), as the viewer asked before it
// asked for the tracks in sight only: its size, the server's time and the parse.
async function lastReply(page, events, idle) {
  await idle();
  const reply = await page.evaluate(async () => {
    const asked = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/trace?'));
    const last = asked[asked.length - 1];
    if (!last) return null;
    // Parsing it again, timed (the viewer parses it inside fetch's json()).
    const timedParse = (text) => {
      const t0 = performance.now();
      JSON.parse(text);
      return performance.now() - t0;
    };
    const text = await (await fetch(last.name)).text();
    const whole = new URL(last.name);
    const lines = whole.searchParams.get('lines');
    whole.searchParams.delete('lines');
    const t0 = performance.now();
    const wholeText = await (await fetch(whole)).text();
    const wholeSeconds = (performance.now() - t0) / 1000;
    return {
      bytes: last.decodedBodySize,
      seconds: (last.responseEnd - last.startTime) / 1000,
      parseMs: timedParse(text),
      takenMs: Number(document.querySelector('.trace-viewer').dataset.acceptMs),
      lines,
      whole: { bytes: wholeText.length, seconds: wholeSeconds, parseMs: timedParse(wholeText) },
    };
  });
  if (!reply) return;
  console.log(
    `${NAME}: ${events.toLocaleString('en')} events, 1/200 of the trace: its last reply ${(reply.bytes / 1e6).toFixed(1)} MB ` +
      `(events on lines ${reply.lines ?? 'all'}), answered in ${reply.seconds.toFixed(2)} s, parsed in ${reply.parseMs.toFixed(0)} ms ` +
      `and laid out in ${reply.takenMs.toFixed(0)} ms by the page; with every track's events ${(reply.whole.bytes / 1e6).toFixed(1)} MB, ` +
      `answered in ${reply.whole.seconds.toFixed(2)} s, parsed in ${reply.whole.parseMs.toFixed(0)} ms`,
  );
}

let server;
let browser;
try {
  const t0 = Date.now();
  const runDir = path.join(logdir, 'plugins/profile/pan');
  const json = path.join(hosts > 1 ? logdir : runDir, 'worker0.pt.trace.json');
  const capture = writeKinetoCapture(json, { threads, steps, opsPerStep });
  let total = capture.events;
  if (hosts > 1) {
    const xplane = path.join(runDir, 'worker0.xplane.pb');
    const converted = spawnSync(process.env.MLPROF, ['convert', json, '--to', 'xplane', '-o', xplane], { encoding: 'utf8' });
    if (converted.status !== 0) throw new Error(`mlprof convert failed: ${converted.stderr}`);
    fs.rmSync(json);
    for (let h = 1; h < hosts; ++h) fs.linkSync(xplane, path.join(runDir, `worker${h}.xplane.pb`));
    total = capture.events * hosts;
    console.log(
      `${NAME}: capture of ${total.toLocaleString('en')} events as ${hosts} hosts of ${capture.events.toLocaleString('en')} ` +
        `(.xplane.pb of ${(fs.statSync(xplane).size / 1e6).toFixed(0)} MB each), written in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  } else {
    console.log(`${NAME}: capture of ${capture.events} events (${capture.flows} flows) written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  server = await startServer(logdir);
  browser = await launchBrowser();
  const { page } = await openPage(browser.context, server.url);
  page.setDefaultTimeout(600_000); // 100 M events take a minute or two to load
  const idle = () => page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
  const t1 = Date.now();
  const host = hosts > 1 ? '' : 'worker0'; // '': every host of the run
  await page.goto(`${server.url}#run=pan&host=${host}&tool=trace_viewer&flows=1`); // every flow drawn: the dearest
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]');
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-rows'));
  console.log(
    `${NAME}: viewer opened (load, index, first viewport) in ${((Date.now() - t1) / 1000).toFixed(1)} s; ` +
      `the server holds ${serverResidentGb().toFixed(1)} GB (of ${(os.totalmem() / 1e9).toFixed(0)} GB)`,
  );
  await idle();
  await page.locator('.trace-button', { hasText: 'Reset' }).click(); // it opens on the steps
  await idle();
  report(total, 'whole trace', await pan(page));
  await page.locator('.trace-button', { hasText: 'Reset' }).click();
  await page.locator('.trace-canvas').hover();
  for (let i = 0; i < 24; ++i) await page.keyboard.press('w'); // 0.8^24: about 1/200 of the trace
  await idle();
  report(total, '1/200 of the trace', await pan(page));
  // The same pan with only the selected event's arrows (none): what drawing every flow costs.
  await page.locator('.trace-flows-toggle').click();
  report(total, '1/200 of the trace, flows hidden', await pan(page));
  await page.locator('.trace-flows-toggle').click();
  await lastReply(page, total, idle);
  await scroll(page, total, idle);
} finally {
  await browser?.close();
  await server?.stop();
  fs.rmSync(logdir, { recursive: true, force: true });
}
