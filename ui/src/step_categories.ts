// The step-time categories of docs/ARCHITECTURE.md §5.2, in the analysis' key order, with the label and
// colour every page uses for them. Waiting for input is red: the first thing to look at.
export interface StepCategory {
  key: string;
  label: string;
  colour: string;
}

export const STEP_CATEGORIES: StepCategory[] = [
  { key: 'input', label: 'Input', colour: '#d93025' },
  { key: 'output', label: 'Output', colour: '#f29900' },
  { key: 'compilation', label: 'Compilation', colour: '#9334e6' },
  { key: 'kernel_launch', label: 'Kernel launch', colour: '#12b5cb' },
  { key: 'host_compute', label: 'Host compute', colour: '#4285f4' },
  { key: 'device_to_device', label: 'Device-to-device', colour: '#e52592' },
  { key: 'device_collectives', label: 'Device collectives', colour: '#b06000' },
  { key: 'device_compute', label: 'Device compute', colour: '#188038' },
  { key: 'other', label: 'Other', colour: '#9aa0a6' },
];

// The categories with the labels a tool's JSON gives (`category_labels`): a TPU's host launches
// XLA programs, so there the launch category reads "Program launch". Never GPU words on a TPU.
export function labelledCategories(labels: Record<string, string> | undefined): StepCategory[] {
  return STEP_CATEGORIES.map((c) => ({ ...c, label: labels?.[c.key] ?? c.label }));
}

// The input pipeline's host-side categories (the seed's names, docs/ARCHITECTURE.md §5.4): parts
// of waiting for input, so shades of its red, none the colour of another category.
export const INPUT_OP_CATEGORIES: StepCategory[] = [
  { key: 'reading_data_from_files_on_demand', label: 'Reading data from files on demand', colour: '#7c0a02' },
  { key: 'reading_data_from_files_in_advance', label: 'Reading data from files in advance', colour: '#c5221f' },
  { key: 'data_preprocessing', label: 'Data preprocessing', colour: '#ee675c' },
  { key: 'enqueuing_data_to_device', label: 'Enqueuing data to be transferred to device', colour: '#f6aea9' },
  { key: 'waiting_for_input_from_workers', label: "Waiting for input from the loader's workers", colour: '#fad2cf' },
];

// A category's label from its key, for text that names categories by key.
export const CATEGORY_LABELS: Record<string, string> = Object.fromEntries(
  [...STEP_CATEGORIES, ...INPUT_OP_CATEGORIES].map((c) => [c.key, c.label]),
);

export type CategoryValues = Record<string, number>;
