// One JSON contract per tool, shared by C++ and TypeScript: what the server answers for every
// tool (src/analysis, through the registry) on the fixture logdir and on the real profiles of
// ../shared/testdata is type-checked, with the UI's own TypeScript compiler and settings,
// against the type each page reads (ToolData in ui/src/pages/registry.ts; the compare page's
// DiffData for /api/diff). A key a page reads that a tool does not write, or writes with
// another type (a null where the page expects a number), fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { SKIP, makeFixtureLogdir, startServer } from './browser/harness.mjs';

const UI = process.env.MLPROF_UI_DIR;
const TSC = path.join(UI, 'node_modules', '.bin', 'tsc');
const VITE_TYPES = path.join(UI, 'node_modules', 'vite', 'client');
if (!fs.existsSync(TSC) || !fs.existsSync(VITE_TYPES + '.d.ts')) {
  console.log(`SKIP: no TypeScript compiler in ${UI}/node_modules (run npm ci in ui/)`);
  process.exit(SKIP);
}

// Real profiles, one run each, when ../shared/testdata is there: GPU kernels and NCCL, memory
// events, TensorFlow's 8-GPU XSpace, a CPU-only trace.
const TESTDATA = process.env.MLPROF_TESTDATA ?? '';
const REAL = [
  ['tensorflow', 'tensorflow/gpu_multi_worker.xplane.pb', 'host.xplane.pb'],
  ['nccl', 'pytorch/nccl_parser_config__nccl_data.json.gz', 'rank0.pt.trace.json.gz'],
  ['memory', 'pytorch/df_index_resolver__df_index_resolver.json.gz', 'rank1.pt.trace.json.gz'],
  ['cpu_only', 'pytorch/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz', 'rank34.pt.trace.json.gz'],
  ['tpu', 'wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb', 'tpu-host.xplane.pb'],
];

// Large tables are cut to a few rows: every row of a table has the same keys, and the checker
// needs no more.
function shorten(value) {
  if (Array.isArray(value)) {
    const kept = value.length > 4 ? [...value.slice(0, 3), value[value.length - 1]] : value;
    return kept.map(shorten);
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  return value;
}

// The value as a TypeScript expression whose strings keep their literal types, so that a page's
// union of string literals (a status, a verdict) is checked against the values the tool writes.
function literal(value) {
  if (typeof value === 'string') return `${JSON.stringify(value)} as const`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${literal(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

// ToolData's tool ids and type names, as registry.ts states them, and the module of each type.
function toolDataTypes() {
  const source = fs.readFileSync(path.join(UI, 'src', 'pages', 'registry.ts'), 'utf8');
  const block = source.match(/export interface ToolData \{([^}]*)\}/);
  assert.ok(block, 'registry.ts has no ToolData interface');
  const types = [...block[1].matchAll(/^\s*(\w+): (\w+);/gm)].map(([, tool, type]) => ({ tool, type }));
  for (const t of types) {
    const imported = source.match(new RegExp(`type ${t.type} \\} from '(\\./\\w+)'`));
    assert.ok(imported, `registry.ts does not import ${t.type}`);
    t.module = path.join(UI, 'src', 'pages', imported[1].slice(2) + '.ts');
  }
  return types;
}

let logdir;
let server;
let work;

before(async () => {
  logdir = makeFixtureLogdir();
  if (fs.existsSync(TESTDATA)) {
    for (const [run, file, name] of REAL) {
      fs.mkdirSync(path.join(logdir, 'plugins', 'profile', run), { recursive: true });
      fs.symlinkSync(path.join(TESTDATA, file), path.join(logdir, 'plugins', 'profile', run, name));
    }
  } else {
    console.log(`testdata not found at ${TESTDATA}: checking the fixture logdir only`);
  }
  server = await startServer(logdir);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'mlprof-json-contract-'));
});

after(async () => {
  await server?.stop();
  if (logdir) fs.rmSync(logdir, { recursive: true, force: true });
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function getJson(url) {
  const res = await fetch(new URL(url, server.url));
  const body = await res.text();
  assert.equal(res.status, 200, `${url}: ${body}`);
  return JSON.parse(body);
}

test('every page reads only keys its tool writes, with the types it expects', { timeout: 240_000 }, async () => {
  const types = toolDataTypes();
  assert.ok(types.length >= 7, `ToolData lists ${types.length} tools`);
  const toolList = (await getJson('/api/runs/healthy/tools')).tools.map((t) => t.name);

  const lines = [
    `import type { ToolData } from '${path.join(UI, 'src', 'pages', 'registry')}';`,
    `import type { DiffData } from '${path.join(UI, 'src', 'pages', 'compare_page')}';`,
  ];
  let samples = 0;
  const { runs } = await getJson('/api/runs');
  for (const { tool, type, module } of types) {
    assert.ok(toolList.includes(tool), `ToolData names ${tool}, which the server does not list`);
    // The page reads this type: its module fetches the tool's JSON as it.
    assert.match(fs.readFileSync(module, 'utf8'), new RegExp(`fetchData<${type}>`), `${module} reads ${type}`);
    for (const run of runs) {
      for (const host of ['', ...(run.hosts.length > 1 ? run.hosts : [])]) {
        const data = shorten(await getJson(`/api/data?run=${encodeURIComponent(run.name)}&host=${encodeURIComponent(host)}&tool=${tool}`));
        const name = `${tool}__${run.name}__${host || 'all'}`.replace(/\W/g, '_');
        lines.push(`const ${name} = ${literal(data)};`, `export const ${name}_checked: ToolData['${tool}'] = ${name};`);
        ++samples;
      }
    }
  }
  const diff = shorten(await getJson('/api/diff?run_a=healthy&run_b=input_bound'));
  lines.push(`const diff = ${literal(diff)};`, `export const diff_checked: DiffData = diff;`);

  fs.writeFileSync(path.join(work, 'contract.ts'), lines.join('\n') + '\n');
  fs.writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(UI, 'tsconfig.json'),
      compilerOptions: { types: [VITE_TYPES], noUnusedLocals: false },
      include: ['contract.ts'],
    }),
  );
  const r = spawnSync(TSC, ['-p', path.join(work, 'tsconfig.json')], { encoding: 'utf8' });
  // Each error names its sample: tool, run and host.
  const named = `${r.stdout}${r.stderr}`.replace(/contract\.ts\((\d+),\d+\)/g, (m, line) => {
    const sample = lines[Number(line) - 1]?.match(/export const (\w+)_checked/);
    return sample ? sample[1] : m;
  });
  assert.equal(r.status, 0, `the tools' JSON does not match the pages' types:\n${named}`);
  console.log(`${samples} tool results and one diff checked against the pages' types`);
});
