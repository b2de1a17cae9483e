// The critical path drawn over the trace viewer's tracks (the critical_path tool's per-step
// `path.segments`): each segment's stretch of its event outlined on the event's row (a run of
// short ones on its track's first row), and an arrow from each segment to the next where the
// path changes row or jumps ahead in time. Only the steps that overlap the view are drawn.
import { fetchToolData } from '../api';
import { PATH_KINDS } from '../path_kinds';
import { fetchEventDetails } from './trace_api';
import { arrows as drawArrows, type Segment } from './trace_flows_drawing';
import { yOfEvent, ROW_PX, type Layout } from './trace_layout';

export interface PathSegment {
  kind: string; // a path kind (path_kinds.ts), or 'waiting'
  name: string; // the event's; '' where no event covers the time
  host?: string; // only when not the step's own host (another rank's work)
  event?: number;
  line?: number; // the event's, or the line of a run of short ones (`merged`)
  event_start_ms?: number;
  merged?: number; // that many short segments on one line, run together
  start_ms: number; // the tools' clock
  duration_ms: number;
}

export interface StepPath {
  segments: PathSegment[];
  left_out: number; // the shortest segments (or a later step's all) not listed
  left_out_ms?: number; // their time on the path
}

interface CriticalPathSteps {
  steps: { host: string; step_num: number; path?: StepPath }[];
}

// A step's path in the viewer's clock (picoseconds since the trace's first event).
export interface ViewerPath {
  host: string;
  stepNum: number;
  startPs: number;
  endPs: number;
  segments: { kind: string; event?: number; line?: number; startPs: number; durPs: number }[];
  leftOut: number;
  leftOutPs: number; // the time of the segments not listed
}

// Fetches the critical path of the run (or host) the viewer shows and puts it on the viewer's
// clock: a segment's event is looked up once for where its start lies in the viewer.
export async function loadCriticalPath(run: string, host: string): Promise<ViewerPath[]> {
  const data = await fetchToolData<CriticalPathSteps>(run, host, 'critical_path');
  const anchor = data.steps.flatMap((s) => s.path?.segments ?? []).find((seg) => seg.event !== undefined && seg.event_start_ms !== undefined);
  if (!anchor) return [];
  const found = await fetchEventDetails(run, host, anchor.event!);
  const zeroPs = anchor.event_start_ms! * 1e9 - found.start_ps;
  return data.steps
    .filter((s) => s.path && s.path.segments.length > 0)
    .map((s) => {
      const segments = s.path!.segments.map((seg) => ({
        kind: seg.kind,
        event: seg.event,
        line: seg.line,
        startPs: seg.start_ms * 1e9 - zeroPs,
        durPs: seg.duration_ms * 1e9,
      }));
      const last = segments[segments.length - 1];
      return {
        host: s.host,
        stepNum: s.step_num,
        startPs: segments[0].startPs,
        endPs: last.startPs + last.durPs,
        segments,
        leftOut: s.path!.left_out,
        leftOutPs: (s.path!.left_out_ms ?? 0) * 1e9,
      };
    });
}

const COLOUR = new Map(PATH_KINDS.map((k) => [k.key, k.colour]));
const OUTLINE = '#f29900';
// Two segments closer than this (pixels, on one row) need no arrow between them.
const ARROW_GAP_PX = 6;

export interface PathDrawn {
  outlined: number; // segments drawn on an event's row
  arrows: number;
  longestEvent: number | null; // the event of the longest segment drawn (for tests)
}

// Draws the paths that overlap the view; `xOf` maps the viewer's picoseconds to pixels.
export function drawCriticalPath(
  g: CanvasRenderingContext2D,
  layout: Layout,
  paths: ViewerPath[],
  view: { start: number; end: number },
  xOf: (ps: number) => number,
  width: number,
): PathDrawn {
  let outlined = 0;
  let arrows = 0;
  let longestEvent: number | null = null;
  let longestPs = -1;
  const hgt = ROW_PX - 2;
  for (const path of paths) {
    if (path.endPs < view.start || path.startPs > view.end) continue;
    let prev: { x: number; y: number } | null = null;
    const heads: Segment[] = [];
    g.lineWidth = 2;
    for (const seg of path.segments) {
      const y = seg.line !== undefined ? yOfEvent(layout, seg.event ?? -1, seg.line) : null;
      if (y === null) continue;
      const x0 = xOf(seg.startPs);
      const x1 = Math.max(xOf(seg.startPs + seg.durPs), x0 + 2);
      if (x1 >= -50 && x0 <= width + 50) {
        // The segment's stretch of its box: a band in its kind's colour under an amber outline.
        g.fillStyle = COLOUR.get(seg.kind) ?? '#5f6368';
        g.fillRect(x0, y + hgt / 2 - 3, x1 - x0, 3);
        g.strokeStyle = OUTLINE;
        g.strokeRect(x0, y - hgt / 2, x1 - x0, hgt);
        ++outlined;
        if (seg.durPs > longestPs) [longestEvent, longestPs] = [seg.event ?? null, seg.durPs];
      }
      if (prev && (Math.abs(prev.y - y) > 1 || x0 - prev.x > ARROW_GAP_PX)) {
        const visible = !((prev.x < 0 && x0 < 0) || (prev.x > width && x0 > width));
        if (visible) heads.push([prev.x, prev.y, x0, y]);
      }
      prev = { x: x1, y };
    }
    if (heads.length) {
      drawArrows(g, heads, OUTLINE, 2);
      arrows += heads.length;
    }
  }
  return { outlined, arrows, longestEvent };
}

// What the drawing leaves out of the paths in view, in words ('' when nothing).
export function leftOutNote(paths: ViewerPath[], view: { start: number; end: number }): string {
  const shown = paths.filter((p) => p.endPs >= view.start && p.startPs <= view.end);
  const count = shown.reduce((n, p) => n + p.leftOut, 0);
  if (!count) return '';
  const total = shown.reduce((n, p) => n + (p.endPs - p.startPs), 0);
  const share = total > 0 ? (100 * shown.reduce((n, p) => n + p.leftOutPs, 0)) / total : 0;
  return `Critical path: the longest segments of each step drawn; ${count.toLocaleString()} shorter ones (${share < 1 ? '< 1' : share.toFixed(0)} % of the path's time) are not.`;
}

// The path of a step: where "Show in trace" opens (the first of that number, on the host shown).
export function pathOfStep(paths: ViewerPath[], step: number): ViewerPath | undefined {
  return paths.find((p) => p.stepNum === step);
}
