#include "analysis/critical_path/path_segments.h"

#include <algorithm>
#include <functional>

namespace mlprof::analysis {
namespace {

// A segment before its strings: the host by its name's id (interned: equal ids, equal names),
// the name read from the event. Strings are made only for the segments listed.
struct Piece {
  PathKind kind = PathKind::kIdle;
  model::StringId host = 0;
  model::EventIndex event = model::kNone;
  uint32_t line = UINT32_MAX;
  int64_t start_ps = 0, duration_ps = 0;
  int64_t event_start_ps = 0;
  uint32_t merged = 1;
};

// Runs together the segments shorter than the `max`-th longest that follow each other on one
// line: one segment of that line, of the kind of its longest piece.
void merge_short_runs(std::vector<Piece>& segs, size_t max) {
  if (segs.size() <= max || max == 0) return;
  std::vector<int64_t> lengths(segs.size());
  for (size_t i = 0; i < segs.size(); ++i) lengths[i] = segs[i].duration_ps;
  std::nth_element(lengths.begin(), lengths.begin() + long(max - 1), lengths.end(), std::greater<>());
  const int64_t cut = lengths[max - 1];
  std::vector<Piece> out;
  std::vector<int64_t> kind_ps;  // per output segment: its longest piece, whose kind it takes
  for (const Piece& s : segs) {
    const bool short_one = s.duration_ps < cut && s.line != UINT32_MAX;
    if (short_one && !out.empty()) {
      Piece& last = out.back();
      const bool last_short = last.merged > 1 || last.duration_ps < cut;  // a short one, or a run of them
      if (last_short && last.line == s.line && last.host == s.host) {
        const int64_t end = std::max(last.start_ps + last.duration_ps, s.start_ps + s.duration_ps);
        if (last.merged == 1) last.event = model::kNone;
        if (s.duration_ps > kind_ps.back()) {
          last.kind = s.kind;
          kind_ps.back() = s.duration_ps;
        }
        last.duration_ps = end - last.start_ps;
        ++last.merged;
        continue;
      }
    }
    kind_ps.push_back(s.duration_ps);
    out.push_back(s);
  }
  segs = std::move(out);
}

PathSegment with_strings(const model::Profile& p, const Piece& piece) {
  PathSegment s;
  s.kind = piece.kind;
  if (piece.event != model::kNone) s.name = std::string(p.name(piece.event));
  s.host = std::string(p.strings.view(piece.host));
  s.event = piece.event;
  s.line = piece.line;
  s.start_ps = piece.start_ps;
  s.duration_ps = piece.duration_ps;
  s.event_start_ps = piece.event_start_ps;
  s.merged = piece.merged;
  return s;
}

}  // namespace

StepPathSegments path_segments(const model::Profile& p, const DependencyGraph& g, const Replay& r,
                               const std::vector<PathPiece>& path, const GraphStep& step, size_t max_segments) {
  StepPathSegments out;
  const int64_t begin = replayed_begin_ps(g, r, step);
  const model::StringId step_host = p.hosts[step.host].name;
  std::vector<Piece> segs;
  // Pieces follow each other on a line for long stretches: look the line up only when they leave it.
  uint32_t line = UINT32_MAX;
  auto line_of = [&](model::EventIndex e) {
    if (line != UINT32_MAX) {
      const model::Line& l = p.lines[line];
      if (e >= l.first_event && e - l.first_event < l.num_events) return line;
    }
    return line = p.line_index(e);
  };
  // The path comes from the step's end back: walk it forwards.
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (it->ps <= 0) continue;  // waiting weighs nothing: it holds no time on the path
    Piece s;
    if (it->edge == UINT32_MAX) {  // before the first instant: nothing explains it
      s.host = step_host;
      s.start_ps = begin;
    } else {
      const PathEdge& e = g.edges[it->edge];
      s.kind = e.kind;
      s.host = p.hosts[e.host].name;
      s.start_ps = r.time_ps[e.to] - it->ps;
      if (e.event != model::kNone) {
        s.event = e.event;
        if (max_segments > 0) s.line = line_of(e.event);  // a step listing none counts them only
        s.event_start_ps = p.start_ps(e.event);
      }
    }
    s.duration_ps = it->ps;
    // Program order splits an event at every child: one event, or one stretch of untraced time, is one segment.
    if (!segs.empty()) {
      Piece& last = segs.back();
      const bool same = s.event != model::kNone ? last.event == s.event
                                                : last.event == model::kNone && last.kind == s.kind && last.host == s.host;
      if (same) {
        last.duration_ps = std::max(last.start_ps + last.duration_ps, s.start_ps + s.duration_ps) - last.start_ps;
        continue;
      }
    }
    segs.push_back(s);
  }
  merge_short_runs(segs, max_segments);
  if (max_segments == 0) {  // a step beyond the listed ones: counted only
    out.left_out = segs.size();
    for (const Piece& s : segs) out.left_out_ps += s.duration_ps;
  } else if (segs.size() > max_segments) {
    // The longest `max_segments`, the earlier first among equals, listed in time order.
    std::vector<int64_t> lengths(segs.size());
    for (size_t i = 0; i < segs.size(); ++i) lengths[i] = segs[i].duration_ps;
    std::nth_element(lengths.begin(), lengths.begin() + long(max_segments - 1), lengths.end(), std::greater<>());
    const int64_t cut = lengths[max_segments - 1];
    size_t longer = 0;
    for (const Piece& s : segs) longer += s.duration_ps > cut;
    size_t equal_kept = max_segments - longer;
    out.segments.reserve(max_segments);
    for (const Piece& s : segs) {
      if (s.duration_ps > cut || (s.duration_ps == cut && equal_kept > 0 && equal_kept--)) {
        out.segments.push_back(with_strings(p, s));
      } else {
        ++out.left_out;
        out.left_out_ps += s.duration_ps;
      }
    }
  } else {
    out.segments.reserve(segs.size());
    for (const Piece& s : segs) out.segments.push_back(with_strings(p, s));
  }
  return out;
}

nlohmann::json to_json(const StepPathSegments& s, std::string_view step_host) {
  nlohmann::json segments = nlohmann::json::array();
  for (const PathSegment& seg : s.segments) {
    nlohmann::json j = {{"kind", std::string(path_kind_key(seg.kind))}, {"name", seg.name}};
    if (seg.host != step_host) j["host"] = seg.host;
    if (seg.event != model::kNone) {
      j["event"] = seg.event;
      j["line"] = seg.line;
      j["event_start_ms"] = double(seg.event_start_ps) / 1e9;
    } else if (seg.line != UINT32_MAX) {
      j["line"] = seg.line;
    }
    if (seg.merged > 1) j["merged"] = seg.merged;
    j["start_ms"] = double(seg.start_ps) / 1e9;
    j["duration_ms"] = double(seg.duration_ps) / 1e9;
    segments.push_back(std::move(j));
  }
  return {{"segments", std::move(segments)}, {"left_out", s.left_out}, {"left_out_ms", double(s.left_out_ps) / 1e9}};
}

}  // namespace mlprof::analysis
