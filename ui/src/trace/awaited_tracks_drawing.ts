// Tracks in sight whose events no reply has brought yet (a scroll that outran the replies):
// hatched, so they read as loading rather than as idle.
import { ROW_PX, type Layout } from './trace_layout';

let hatch: CanvasPattern | null = null;

function hatchPattern(g: CanvasRenderingContext2D): CanvasPattern | null {
  if (hatch) return hatch;
  const tile = document.createElement('canvas');
  tile.width = tile.height = 8;
  const t = tile.getContext('2d');
  if (!t) return null;
  t.strokeStyle = '#dadce0';
  t.lineWidth = 2;
  t.beginPath();
  // One diagonal, and its ends at the corners so that the tiles join.
  t.moveTo(-2, 10);
  t.lineTo(10, -2);
  t.moveTo(-2, 2);
  t.lineTo(2, -2);
  t.moveTo(6, 10);
  t.lineTo(10, 6);
  t.stroke();
  hatch = g.createPattern(tile, 'repeat');
  return hatch;
}

export function drawAwaited(g: CanvasRenderingContext2D, layout: Layout, lines: number[], width: number): void {
  if (!lines.length) return;
  const pattern = hatchPattern(g);
  if (!pattern) return;
  g.fillStyle = pattern;
  for (const line of lines) for (const place of layout.rowsOfLine.get(line) ?? []) g.fillRect(0, place.y + 1, width, ROW_PX - 2);
}
