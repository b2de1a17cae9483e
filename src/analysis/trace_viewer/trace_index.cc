#include "analysis/trace_viewer/trace_index.h"

#include <algorithm>
#include <cmath>

#include "analysis/trace_viewer/trace_lanes.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::LineKind;

constexpr size_t kBlockBits = 5;  // blocks of 32 events, of 32 blocks, ...

// Device lines as the seed orders them: steps, op lines, then streams and the rest.
int line_order(LineKind kind) {
  switch (kind) {
    case LineKind::kSteps: return 0;
    case LineKind::kXlaModules: return 1;
    case LineKind::kFrameworkOps: return 2;
    case LineKind::kNameScope: return 3;
    case LineKind::kXlaOps: return 4;
    default: return 5;
  }
}

// The first position in [lo, hi) whose event fails `pred` (true for a prefix of the row).
template <class Pred>
size_t partition_point(const TraceRowEvents& events, size_t lo, size_t hi, Pred pred) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (pred(events[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The same, for an answer expected near `lo`: steps of doubling length from lo, then a
// bisection of the last step, so the probes stay near lo in memory (a pixel column's events
// are a small part of a row).
template <class Pred>
size_t gallop(const TraceRowEvents& events, size_t lo, size_t hi, Pred pred) {
  for (size_t step = 1; lo < hi; step *= 2) {
    const size_t probe = std::min(hi, lo + step) - 1;
    if (!pred(events[probe])) return partition_point(events, lo, probe, pred);
    lo = probe + 1;
  }
  return lo;
}

// Codes compare as their durations do, so the largest code is the largest ceiling.
void build_maxima(const model::Profile& p, const std::vector<EventIndex>& events, TraceRow& row) {
  std::vector<uint16_t> level;
  const size_t block = size_t(1) << kBlockBits;
  level.reserve((events.size() + block - 1) / block);
  for (size_t i = 0; i < events.size(); i += block) {
    int64_t m = 0;
    for (size_t j = i, end = std::min(events.size(), i + block); j < end; ++j) m = std::max(m, p.duration_ps(events[j]));
    level.push_back(encode_duration_ceiling(m));
  }
  while (level.size() > 1) {
    std::vector<uint16_t> up;
    up.reserve((level.size() + block - 1) / block);
    for (size_t i = 0; i < level.size(); i += block)
      up.push_back(*std::max_element(level.begin() + i, level.begin() + std::min(level.size(), i + block)));
    row.max_duration.push_back(std::move(level));
    level = std::move(up);
  }
  row.max_duration.push_back(std::move(level));
}

}  // namespace

uint16_t encode_duration_ceiling(int64_t duration_ps) {
  const uint64_t v = uint64_t(std::max<int64_t>(duration_ps, 0));
  unsigned shift = 0;
  while ((v >> shift) > 1023) ++shift;
  uint64_t mantissa = (v + (uint64_t(1) << shift) - 1) >> shift;  // rounded up
  if (mantissa > 1023) {  // rounding up carried: one more bit of shift (two statements, since
    ++shift;              // GCC's UndefinedBehaviorSanitizer build read `shift` before `++shift`)
    mantissa = (v + (uint64_t(1) << shift) - 1) >> shift;
  }
  return uint16_t(shift << 10 | mantissa);
}

TraceIndex::TraceIndex(const model::Profile& p) : profile_(p) {
  begin_ps_ = INT64_MAX;
  end_ps_ = INT64_MIN;
  for (uint32_t pl = 0; pl < p.planes.size(); ++pl) {
    const model::Plane& plane = p.planes[pl];
    std::vector<uint32_t> lines;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
      if (p.lines[l].num_events > 0) lines.push_back(l);
    std::stable_sort(lines.begin(), lines.end(),
                     [&](uint32_t a, uint32_t b) { return line_order(p.lines[a].kind) < line_order(p.lines[b].kind); });
    for (uint32_t l : lines) {
      const model::Line& line = p.lines[l];
      const LinePlacement placement = place_line_events(p, l);
      TraceTrackRows track;
      track.line = l;
      // Rows by (lane, depth): count first so each row's array is allocated once.
      std::vector<std::vector<size_t>> counts(placement.num_lanes);
      for (uint32_t i = 0; i < line.num_events; ++i) {
        auto& c = counts[placement.lane[i]];
        if (c.size() <= placement.depth[i]) c.resize(placement.depth[i] + 1, 0);
        ++c[placement.depth[i]];
      }
      std::vector<std::vector<uint32_t>> row_of(placement.num_lanes);
      std::vector<std::vector<EventIndex>> row_events;  // the line's rows, until compressed
      for (uint16_t lane = 0; lane < placement.num_lanes; ++lane)
        for (uint16_t d = 0; d < counts[lane].size(); ++d) {
          row_of[lane].push_back(uint32_t(track.rows.size()));
          TraceRow row;
          row.lane = lane;
          row.depth = d;
          track.rows.push_back(std::move(row));
          row_events.emplace_back().reserve(counts[lane][d]);
        }
      for (uint32_t i = 0; i < line.num_events; ++i) {
        const EventIndex e = line.first_event + i;
        row_events[row_of[placement.lane[i]][placement.depth[i]]].push_back(e);
        begin_ps_ = std::min(begin_ps_, p.start_ps(e));
        end_ps_ = std::max(end_ps_, p.end_ps(e));
      }
      for (size_t r = 0; r < track.rows.size(); ++r) {
        build_maxima(p, row_events[r], track.rows[r]);
        track.rows[r].events = TraceRowEvents(row_events[r]);
        std::vector<EventIndex>().swap(row_events[r]);
      }
      tracks_.push_back(std::move(track));
    }
  }
  if (begin_ps_ > end_ps_) begin_ps_ = end_ps_ = 0;
}

size_t TraceIndex::bytes_used() const {
  size_t bytes = tracks_.capacity() * sizeof(TraceTrackRows);
  for (const auto& t : tracks_)
    for (const auto& r : t.rows) {
      bytes += sizeof(TraceRow) + r.events.bytes_used();
      for (const auto& level : r.max_duration) bytes += level.capacity() * sizeof(uint16_t);
    }
  return bytes;
}

// The first position in [from, to) whose event lasts at least min_duration, else `to`:
// jumps past the largest block around the position whose longest event is shorter.
size_t TraceIndex::first_wide(const TraceRow& row, size_t from, size_t to, int64_t min_duration) const {
  size_t k = from;
  while (k < to) {
    bool jumped = false;
    for (size_t level = row.max_duration.size(); level-- > 0;) {
      const size_t bits = kBlockBits * (level + 1);
      if (decode_duration_ceiling(row.max_duration[level][k >> bits]) < min_duration) {
        k = std::min(to, ((k >> bits) + 1) << bits);
        jumped = true;
        break;
      }
    }
    if (jumped) continue;
    if (profile_.duration_ps(row.events[k]) >= min_duration) return k;
    ++k;
  }
  return to;
}

void TraceIndex::query_row(const TraceRow& row, const TraceViewport& view, std::vector<TraceBox>& out) const {
  const auto& p = profile_;
  const auto& ev = row.events;
  if (view.end_ps <= view.start_ps || view.width_px == 0) return;
  // Visible: ends after the viewport starts and starts before it ends.
  size_t k = partition_point(ev, 0, ev.size(), [&](EventIndex e) { return p.end_ps(e) <= view.start_ps; });
  const size_t hi = partition_point(ev, k, ev.size(), [&](EventIndex e) { return p.start_ps(e) < view.end_ps; });
  const double ps_per_px = double(view.end_ps - view.start_ps) / view.width_px;
  const int64_t one_px = std::max<int64_t>(1, int64_t(std::ceil(ps_per_px)));
  while (k < hi) {
    const EventIndex e = ev[k];
    if (p.duration_ps(e) >= one_px) {
      out.push_back({p.start_ps(e), p.duration_ps(e), e, 1});
      ++k;
      continue;
    }
    // Narrow: take every following narrow event that starts in the same pixel column.
    const double column = std::floor(double(std::max(p.start_ps(e), view.start_ps) - view.start_ps) / ps_per_px);
    const int64_t column_end = view.start_ps + int64_t(std::ceil((column + 1) * ps_per_px));
    const size_t past_column =
        gallop(ev, k + 1, hi, [&](EventIndex x) { return p.start_ps(x) < column_end; });
    const size_t stop = first_wide(row, k + 1, past_column, one_px);
    const uint32_t count = uint32_t(stop - k);
    if (count == 1) {
      out.push_back({p.start_ps(e), p.duration_ps(e), e, 1});
    } else {
      out.push_back({p.start_ps(e), p.end_ps(ev[stop - 1]) - p.start_ps(e), model::kNone, count});
    }
    k = stop;
  }
}

}  // namespace mlprof::analysis
