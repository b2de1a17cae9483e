// The kinds of work on the critical path (docs/ARCHITECTURE.md §5.9b, the critical_path tool's `kind_ms`
// keys), with the label and colour every page uses for them. A kind that is also a step-time
// category takes that category's colour, so red is input on every page.
import { STEP_CATEGORIES, CATEGORY_LABELS, type StepCategory } from './step_categories';

const categoryColour = (key: string) => STEP_CATEGORIES.find((c) => c.key === key)!.colour;

export const PATH_KINDS: StepCategory[] = [
  { key: 'input', label: 'Input', colour: categoryColour('input') },
  { key: 'host', label: 'Host', colour: categoryColour('host_compute') },
  { key: 'kernel_launch', label: 'Kernel launch', colour: categoryColour('kernel_launch') },
  { key: 'device_compute', label: 'Device compute', colour: categoryColour('device_compute') },
  { key: 'collectives', label: 'Collectives', colour: categoryColour('device_collectives') },
  { key: 'copies', label: 'Copies', colour: categoryColour('device_to_device') },
  { key: 'waiting_for_rank', label: 'Waiting for another rank', colour: '#5f6368' },
  { key: 'idle', label: 'Idle', colour: categoryColour('other') },
];

const PATH_KIND_LABELS: Record<string, string> = Object.fromEntries(PATH_KINDS.map((k) => [k.key, k.label]));

// The words a tool's JSON gives for its keys (`labels`: a TPU's "Program launch" for
// kernel_launch), by key; absent: these pages' own words.
export type PathLabels = Record<string, string> | undefined;

// The kinds with the JSON's words where it gives them.
export function labelledPathKinds(labels: PathLabels): StepCategory[] {
  return PATH_KINDS.map((k) => ({ ...k, label: labels?.[k.key] ?? k.label }));
}

// A what-if target's label: a path kind or step category by its label, else the op or kernel
// name as it is.
export function targetLabel(target: string, labels?: PathLabels): { label: string; isName: boolean } {
  const label = labels?.[target] ?? PATH_KIND_LABELS[target] ?? CATEGORY_LABELS[target];
  return label ? { label, isName: false } : { label: target, isName: true };
}
