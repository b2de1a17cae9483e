// The trace viewer while panning, in a real headless Chromium (the issue asks for 60 fps):
// `mlprof serve` over a PyTorch capture of EVENTS events (16 CPU threads of ops that launch
// kernels on 16 streams, flows on), the viewer at the whole trace and zoomed to 1/200 of it,
// panned by one wheel event per animation frame for a few seconds. Frame times are the gaps
// between requestAnimationFrame callbacks; draw time is the viewer's own drawing per frame.
// Prints one line per zoom: frames, p50/p95 frame time, fps, p50/p95 draw time, and the CPU
// time the browser's and the server's processes used per frame: on a busy machine frame times
// also count the time other processes had the cores, the CPU time does not.
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
const threads = 16;
const opsPerStep = 50;
const steps = Math.max(1, Math.round(events / threads / (1 + 3 * opsPerStep)));
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
    let direction = 1;
    let lastStart = -1;
    return new Promise((resolve) => {
      const t0 = performance.now();
      const frame = (now) => {
        frames.push(now);
        draws.push(Number(viewer.dataset.drawMs ?? 0));
        const start = Number(viewer.dataset.startPs);
        if (start === lastStart) direction = -direction; // at an end of the trace
        lastStart = start;
        canvas.dispatchEvent(
          new WheelEvent('wheel', { deltaX: 12 * direction, deltaY: 0, clientX: rect.left + 300, clientY: rect.top + 40, bubbles: true, cancelable: true }),
        );
        if (now - t0 < seconds * 1000) requestAnimationFrame(frame);
        else resolve({ frames, draws });
      };
      requestAnimationFrame(frame);
    });
  }, SECONDS);
  result.cpuSeconds = descendantsCpuSeconds() - cpu0;
  return result;
}

function report(label, { frames, draws, cpuSeconds }) {
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const drawn = draws.slice(2).sort((a, b) => a - b);
  const fps = (frames.length - 1) / ((frames[frames.length - 1] - frames[0]) / 1000);
  console.log(
    `${NAME}: ${label}: ${frames.length} frames, frame time p50 ${percentile(gaps, 0.5).toFixed(1)} ms, ` +
      `p95 ${percentile(gaps, 0.95).toFixed(1)} ms, ${fps.toFixed(1)} fps; draw p50 ${percentile(drawn, 0.5).toFixed(1)} ms, ` +
      `p95 ${percentile(drawn, 0.95).toFixed(1)} ms; CPU ${((cpuSeconds * 1000) / frames.length).toFixed(1)} ms per frame`,
  );
}

let server;
let browser;
try {
  const t0 = Date.now();
  const capture = writeKinetoCapture(path.join(logdir, 'plugins/profile/pan/worker0.pt.trace.json'), { threads, steps, opsPerStep });
  console.log(`${NAME}: capture of ${capture.events} events (${capture.flows} flows) written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  server = await startServer(logdir);
  browser = await launchBrowser();
  const { page } = await openPage(browser.context, server.url);
  page.setDefaultTimeout(120_000);
  const idle = () => page.waitForFunction(() => !document.querySelector('.trace-viewer[data-loading]'));
  const t1 = Date.now();
  await page.goto(`${server.url}#run=pan&host=worker0&tool=trace_viewer&flows=1`); // every flow drawn: the dearest
  await page.waitForSelector('.page[data-tool="trace_viewer"][data-ready="true"]');
  await page.waitForFunction(() => document.querySelector('.trace-viewer')?.hasAttribute('data-rows'));
  console.log(`${NAME}: viewer opened (load, index, first viewport) in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  await idle();
  await page.locator('.trace-button', { hasText: 'Reset' }).click(); // it opens on the steps
  await idle();
  report('whole trace', await pan(page));
  await page.locator('.trace-button', { hasText: 'Reset' }).click();
  await page.locator('.trace-canvas').hover();
  for (let i = 0; i < 24; ++i) await page.keyboard.press('w'); // 0.8^24: about 1/200 of the trace
  await idle();
  report('1/200 of the trace', await pan(page));
} finally {
  await browser?.close();
  await server?.stop();
  fs.rmSync(logdir, { recursive: true, force: true });
}
