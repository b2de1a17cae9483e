// Writes a PyTorch profiler trace (Kineto's JSON) with GPU work, for the trace viewer's browser
// test and benchmark: on each CPU thread, steps of ops that each launch a kernel
// (cudaLaunchKernel → a kernel on stream 7 with the same correlation id, so every launch has
// a flow arrow). Written in chunks, so large traces never sit in memory as one string.
//
//   writeKinetoCapture(file, { threads, steps, opsPerStep }) → { events, flows, stepUs, opUs }
import fs from 'node:fs';
import path from 'node:path';

export function writeKinetoCapture(file, { threads = 1, steps = 4, opsPerStep = 5 } = {}) {
  const opUs = 150; // an op: a 10 µs launch 20 µs in; its kernel runs 100 µs on the GPU
  const stepUs = opsPerStep * opUs + 100;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let chunk = [];
  let first = true;
  let events = 0;
  let flows = 0;
  const flush = () => {
    if (chunk.length) fs.writeSync(fd, chunk.join(''));
    chunk = [];
  };
  const add = (e) => {
    chunk.push((first ? '' : ',\n') + JSON.stringify(e));
    first = false;
    ++events;
    if (chunk.length >= 10_000) flush();
  };
  fs.writeSync(fd, '{"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000, "traceEvents": [\n');
  let correlation = 1;
  for (let t = 0; t < threads; ++t) {
    const tid = 100 + t;
    for (let s = 0; s < steps; ++s) {
      const step0 = s * stepUs + t * 7; // threads a little apart, so their boxes differ
      add({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${s}`, pid: 10, tid, ts: step0, dur: stepUs - 50 });
      for (let o = 0; o < opsPerStep; ++o) {
        const op0 = step0 + 20 + o * opUs;
        const c = correlation++;
        add({ ph: 'X', cat: 'cpu_op', name: o % 2 ? 'aten::relu' : 'aten::addmm', pid: 10, tid, ts: op0, dur: opUs - 20 });
        add({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 10, tid, ts: op0 + 20, dur: 10, args: { cbid: 211, correlation: c } });
        add({ ph: 'X', cat: 'kernel', name: o % 2 ? 'relu_kernel' : 'gemm_kernel', pid: 0, tid: 7 + t, ts: op0 + 40, dur: 100,
              args: { device: 0, stream: 7 + t, correlation: c } });
        ++flows;
      }
    }
  }
  flush();
  fs.writeSync(fd, '\n]}\n');
  fs.closeSync(fd);
  return { events, flows, stepUs, opUs };
}
