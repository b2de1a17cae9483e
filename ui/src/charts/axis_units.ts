// One unit per chart axis: the title names it ("Memory (GiB)") and every tick is a plain,
// round number of it, rather than each tick choosing its own unit ("512 MiB", "1.5 GiB").

export interface AxisUnit {
  unit: string;
  scale: number; // raw value per unit
  incrs: number[]; // tick spacings in raw values: 1, 2 and 5 times powers of ten of the unit
}

function incrsOf(scale: number): number[] {
  const out: number[] = [];
  for (let p = -3; p <= 6; ++p) for (const m of [1, 2, 5]) out.push(m * 10 ** p * scale);
  return out;
}

export function bytesAxis(maxBytes: number): AxisUnit {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (u < units.length - 1 && maxBytes >= 1024 ** (u + 1)) ++u;
  return { unit: units[u], scale: 1024 ** u, incrs: incrsOf(1024 ** u) };
}

export function msAxis(maxMs: number): AxisUnit {
  const [unit, scale] = maxMs >= 1000 ? ['s', 1000] : maxMs >= 1 ? ['ms', 1] : ['µs', 0.001];
  return { unit, scale, incrs: incrsOf(scale) };
}

// A tick's text: the value in the axis's unit, without float noise.
export function tickText(v: number, a: AxisUnit): string {
  return String(Number((v / a.scale).toPrecision(6)));
}
