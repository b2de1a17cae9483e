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

export type CategoryValues = Record<string, number>;
