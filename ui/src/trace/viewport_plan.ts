// Which part of the trace to ask the server for, and when a reply already in hand can draw the
// view: a reply spans the visible range plus two spans either side at the same pixel density,
// so panning draws from it without waiting, and a new one is asked when the view comes within
// half a span of its edge (so that it lands before the view gets there) or the zoom changes
// enough that its boxes would look coarse (or needlessly fine). A pan asks for one reply per
// span and a half: each costs the server and the page's parsing about as much as its events,
// so fewer, wider replies cost less than one per half span.
import type { TimeRange } from './time_scale';

export interface FetchedRange extends TimeRange {
  widthPx: number; // the width the server merged boxes for
}

const MARGIN_SPANS = 2;
const AHEAD_SPANS = 0.5;
const MAX_WIDTH_PX = 20000; // the server's limit
// How far the zoom may drift from the reply's before a new one is worth asking.
const MIN_DENSITY_RATIO = 0.7;
const MAX_DENSITY_RATIO = 1.5;

// The range to fetch for a view `plotWidth` pixels wide, inside [0, total].
export function rangeToFetch(view: TimeRange, plotWidth: number, total: number): FetchedRange {
  const span = view.end - view.start;
  const start = Math.max(0, view.start - span * MARGIN_SPANS);
  const end = Math.min(Math.max(total, view.end), view.end + span * MARGIN_SPANS);
  const widthPx = Math.min(MAX_WIDTH_PX, Math.max(1, Math.round(((end - start) / span) * plotWidth)));
  return { start, end, widthPx };
}

// Whether `fetched` holds everything the view shows at about the view's density.
export function covers(fetched: FetchedRange | null, view: TimeRange, plotWidth: number): boolean {
  if (!fetched) return false;
  if (view.start < fetched.start || view.end > fetched.end) return false;
  const fetchedPsPerPx = (fetched.end - fetched.start) / fetched.widthPx;
  const viewPsPerPx = (view.end - view.start) / plotWidth;
  const ratio = fetchedPsPerPx / viewPsPerPx;
  return ratio >= MIN_DENSITY_RATIO && ratio <= MAX_DENSITY_RATIO;
}

// Whether `fetched` covers the view and still half a span either side (or up to the trace's
// ends): else the next reply is worth asking now, while panning draws from this one.
export function coversAhead(fetched: FetchedRange | null, view: TimeRange, plotWidth: number, total: number): boolean {
  if (!fetched || !covers(fetched, view, plotWidth)) return false;
  const ahead = (view.end - view.start) * AHEAD_SPANS;
  return fetched.start <= Math.max(0, view.start - ahead) && fetched.end >= Math.min(total, view.end + ahead);
}

// Whether two replies span the same time at the same width (one's boxes fit the other's).
export function sameFetch(a: FetchedRange | null, b: FetchedRange | null): boolean {
  return !!a && !!b && a.start === b.start && a.end === b.end && a.widthPx === b.widthPx;
}
