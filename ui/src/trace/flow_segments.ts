// A reply's flow arrows indexed by time, built once per reply and layout: a frame (or a panned
// bitmap's strip) finds the arrows that cross its time range without walking every flow, and
// an arrow's rows are looked up once, the first time it is drawn. When more arrows are in a
// view than a frame should draw, every k-th by its place in the reply is kept: the same arrows
// on every frame of a pan (choosing among those in view would change them as the view moves),
// and every track keeps some (a reply lists a track's flows together).
import type { TimeRange } from './time_scale';
import type { TraceViewportFlow } from './trace_api';
import { yOfEvent, type Layout } from './trace_layout';

// At most about this many arrows in any one view's width.
export const MAX_FLOWS_PER_VIEW = 600;
// Time buckets per reply; an arrow longer than LONG_BUCKETS of them is checked on every query.
const BUCKETS = 4096;
const LONG_BUCKETS = 64;

const UNKNOWN = Number.NaN; // a row not looked up yet
const NOWHERE = Number.NEGATIVE_INFINITY; // an end whose track is not laid out

export interface FlowIndexKey {
  layout: Layout;
  flows: TraceViewportFlow[];
  selectedEvent: number | undefined; // its arrows are left out here (drawn highlighted apart)
}

export class FlowSegments {
  readonly key: FlowIndexKey;
  private readonly fromPs: Float64Array;
  private readonly toPs: Float64Array;
  private readonly y0: Float64Array;
  private readonly y1: Float64Array;
  private readonly flow: Uint32Array; // the arrow's place in the reply's list
  private readonly order: Uint32Array; // arrows by bucket of their earlier end
  private readonly bucketStart: Uint32Array; // into `order`, BUCKETS + 1 entries
  private readonly long: Uint32Array; // arrows spanning more than LONG_BUCKETS buckets
  private readonly origin: number;
  private readonly bucketPs: number;
  private strideFor = { span: -1, stride: 1 };

  constructor(key: FlowIndexKey) {
    this.key = key;
    const kept = key.flows.filter(([from, to]) => from !== key.selectedEvent && to !== key.selectedEvent);
    const n = kept.length;
    this.fromPs = new Float64Array(n);
    this.toPs = new Float64Array(n);
    this.y0 = new Float64Array(n).fill(UNKNOWN);
    this.y1 = new Float64Array(n).fill(UNKNOWN);
    this.flow = new Uint32Array(n);
    let lo = Infinity;
    let hi = -Infinity;
    let k = 0;
    key.flows.forEach(([from, to, , , fromPs, , toPs], i) => {
      if (from === key.selectedEvent || to === key.selectedEvent) return;
      this.fromPs[k] = fromPs;
      this.toPs[k] = toPs;
      this.flow[k++] = i;
      lo = Math.min(lo, fromPs, toPs);
      hi = Math.max(hi, fromPs, toPs);
    });
    this.origin = n ? lo : 0;
    this.bucketPs = n ? Math.max(1, (hi - lo) / BUCKETS) : 1;
    // A counting sort by the bucket of each arrow's earlier end.
    const bucketOf = new Uint32Array(n);
    const counts = new Uint32Array(BUCKETS + 1);
    const longOnes: number[] = [];
    for (let i = 0; i < n; ++i) {
      const b = this.bucket(Math.min(this.fromPs[i], this.toPs[i]));
      bucketOf[i] = b;
      ++counts[b + 1];
      if (Math.abs(this.toPs[i] - this.fromPs[i]) > LONG_BUCKETS * this.bucketPs) longOnes.push(i);
    }
    for (let b = 0; b < BUCKETS; ++b) counts[b + 1] += counts[b];
    this.bucketStart = counts.slice();
    this.order = new Uint32Array(n);
    for (let i = 0; i < n; ++i) this.order[counts[bucketOf[i]]++] = i;
    this.long = Uint32Array.from(longOnes);
  }

  matches(key: FlowIndexKey): boolean {
    return this.key.layout === key.layout && this.key.flows === key.flows && this.key.selectedEvent === key.selectedEvent;
  }

  private bucket(ps: number): number {
    return Math.max(0, Math.min(BUCKETS - 1, Math.floor((ps - this.origin) / this.bucketPs)));
  }

  // Keeps every k-th arrow, k such that no view's width of the reply holds more than
  // MAX_FLOWS_PER_VIEW (found once per zoom, from the buckets' counts).
  stride(viewSpan: number): number {
    if (this.strideFor.span === viewSpan) return this.strideFor.stride;
    const window = Math.max(1, Math.ceil(viewSpan / this.bucketPs));
    let most = 0;
    let inWindow = 0;
    for (let b = 0; b < BUCKETS; ++b) {
      inWindow += this.bucketStart[b + 1] - this.bucketStart[b];
      if (b >= window) inWindow -= this.bucketStart[b - window + 1] - this.bucketStart[b - window];
      most = Math.max(most, inWindow);
    }
    const stride = Math.max(1, Math.ceil(most / MAX_FLOWS_PER_VIEW));
    this.strideFor = { span: viewSpan, stride };
    return stride;
  }

  // Calls `visit` with each kept arrow that crosses `range` (widened by `slackPs` either side)
  // and whose ends are laid out: its ends' times and rows' middles.
  forEachIn(range: TimeRange, slackPs: number, stride: number, visit: (fromPs: number, y0: number, toPs: number, y1: number) => void): void {
    const start = range.start - slackPs;
    const end = range.end + slackPs;
    const first = Math.max(0, this.bucket(start) - LONG_BUCKETS);
    const last = this.bucket(end);
    const take = (i: number) => {
      if (this.flow[i] % stride !== 0) return;
      const a = this.fromPs[i];
      const b = this.toPs[i];
      if (Math.max(a, b) < start || Math.min(a, b) > end) return;
      if (Number.isNaN(this.y0[i])) this.lookUp(i);
      if (this.y0[i] === NOWHERE || this.y1[i] === NOWHERE) return;
      visit(a, this.y0[i], b, this.y1[i]);
    };
    for (let k = this.bucketStart[first]; k < this.bucketStart[last + 1]; ++k) take(this.order[k]);
    // The long ones that start before the buckets looked at.
    for (const i of this.long) if (this.bucket(Math.min(this.fromPs[i], this.toPs[i])) < first) take(i);
  }

  private lookUp(i: number): void {
    const [from, to, , fromLine, , toLine] = this.key.flows[this.flow[i]];
    this.y0[i] = yOfEvent(this.key.layout, from, fromLine) ?? NOWHERE;
    this.y1[i] = yOfEvent(this.key.layout, to, toLine) ?? NOWHERE;
  }
}
