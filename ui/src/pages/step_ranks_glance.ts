// The per-rank tables of the step pages (the overview and the input pipeline: their JSON's
// `ranks`, one row per rank) and of op stats, on components/ranks_table.ts: each rank's step
// by category, or its input, or its self time, on one scale across ranks.
import { formatCount, formatMs, formatPct } from '../format';
import { numberColumn, ranksTable } from '../components/ranks_table';
import { windowCaption } from '../components/panel';
import { PALETTE } from '../charts/palette';
import type { StepCategory } from '../step_categories';

// A rank's steps (rank_step_table.h): the mean step and its breakdown by category.
export interface RankStepRow {
  host: string; // the rank's name
  file?: string; // its host in the run, which its trace opens by
  steps: number;
  step_ms: number; // a step on average
  input_pct: number;
  bottleneck: string; // the category with the most time
  breakdown_ms: Record<string, number>; // a step on average, by category
}

// A rank's op stats (op_stats_ranks.h).
export interface RankOpsRow {
  host: string;
  file?: string;
  host_self_time_ms: number;
  device_self_time_ms: number;
  top_op: string;
  top_op_on: string; // Host or Device
  top_op_self_time_ms: number;
  top_op_self_time_pct: number;
}

const WINDOW = 'a step on average, per rank';

// The overview's: each rank's step by category.
export function stepRanksTable(rows: RankStepRow[] | undefined, run: string, categories: StepCategory[]): HTMLElement | null {
  const label = new Map(categories.map((c) => [c.key, c.label]));
  return ranksTable<RankStepRow>({
    title: 'Step time per rank',
    run,
    rows: rows ?? [],
    rank: (r) => r.host,
    file: (r) => r.file,
    columns: [
      numberColumn('steps', 'Steps', (r) => r.steps, formatCount),
      numberColumn('step', 'Step time', (r) => r.step_ms, formatMs, 'A step on average'),
      numberColumn('input', 'Input', (r) => r.input_pct, formatPct, 'Of the step, waiting for input'),
      { key: 'largest', title: 'Most time in', value: (r) => label.get(r.bottleneck) ?? r.bottleneck },
    ],
    bar: (r) => categories.map((c) => ({ label: c.label, value: r.breakdown_ms[c.key] ?? 0, colour: c.colour })).filter((p) => p.value > 0),
    barTitle: 'The step by category, on one scale',
    unit: formatMs,
    window: windowCaption(WINDOW),
  });
}

// The input pipeline's: each rank's input beside the rest of its step.
export function inputRanksTable(rows: RankStepRow[] | undefined, run: string, inputColour: string): HTMLElement | null {
  const input = (r: RankStepRow) => r.breakdown_ms.input ?? 0;
  return ranksTable<RankStepRow>({
    title: 'Input per rank',
    run,
    rows: rows ?? [],
    rank: (r) => r.host,
    file: (r) => r.file,
    columns: [
      numberColumn('step', 'Step time', (r) => r.step_ms, formatMs, 'A step on average'),
      numberColumn('input_ms', 'Input', input, formatMs, 'A step on average, waiting for input'),
      numberColumn('input', 'Input %', (r) => r.input_pct, formatPct),
    ],
    bar: (r) => [
      { label: 'Input', value: input(r), colour: inputColour },
      { label: 'Rest of the step', value: Math.max(0, r.step_ms - input(r)), colour: '#dadce0' },
    ],
    barTitle: 'Input and the rest of the step, on one scale',
    unit: formatMs,
    window: windowCaption(WINDOW),
  });
}

// Op stats': each rank's self time on the host and the device, and its top op; each rank's
// own whole profile (the op tables below sum over the ranks).
export function opRanksTable(rows: RankOpsRow[] | undefined, run: string): HTMLElement | null {
  return ranksTable<RankOpsRow>({
    title: 'Self time per rank',
    run,
    rows: rows ?? [],
    rank: (r) => r.host,
    file: (r) => r.file,
    columns: [
      numberColumn('host', 'Host self time', (r) => r.host_self_time_ms, formatMs),
      numberColumn('device', 'Device self time', (r) => r.device_self_time_ms, formatMs),
      { key: 'top', title: 'Top op', name: true, shorten: 40, value: (r) => r.top_op },
      numberColumn('top_pct', 'Top op %', (r) => r.top_op_self_time_pct, formatPct, 'Of its side’s self time (host or device)'),
    ],
    bar: (r) => [
      { label: 'Host', value: r.host_self_time_ms, colour: PALETTE[0] },
      { label: 'Device', value: r.device_self_time_ms, colour: PALETTE[1] },
    ],
    barTitle: 'Self time on the host and the device, on one scale',
    unit: formatMs,
    window: windowCaption('the whole profile, per rank'),
  });
}
