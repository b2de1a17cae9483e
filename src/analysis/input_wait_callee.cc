#include "analysis/input_wait_callee.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "analysis/interval_union.h"
#include "analysis/python_frames.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;

// A frame is input work when this share of its time falls in the wait.
constexpr double kInputWorkShare = 0.8;

}  // namespace

std::optional<InputWaitCallee> find_input_wait_callee(const model::Profile& p, const StepAnalysis& sa) {
  if (sa.whole_profile || sa.input_wait.empty()) return std::nullopt;
  int64_t wait_ps = 0;
  for (const auto& [begin, end] : sa.input_wait) wait_ps += end - begin;

  std::vector<uint8_t> frame_name(p.names.size(), 0);
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n)
    any |= (frame_name[n] = parse_python_frame(p.strings.view(p.names[n].name)).valid()) != 0;
  if (!any) return std::nullopt;

  // The steps' own threads: (host, thread id) of their roots. PyTorch writes a thread's Python
  // frames on a line of their own with the thread's id.
  std::set<std::pair<uint32_t, int64_t>> step_threads;
  for (uint32_t group : sa.grouping.selected) {
    const EventIndex root = sa.grouping.steps[group].root;
    if (root == kNone) continue;
    const model::Line& line = p.line_of(root);
    step_threads.emplace(p.planes[line.plane].host, line.id);
  }

  // Each frame's time in the wait, on the steps' threads.
  std::vector<std::pair<EventIndex, int64_t>> in_wait;  // by event index
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    const model::Plane& plane = p.planes[line.plane];
    // Host threads, and PyTorch's Python frames, which it keeps on a plane of their own.
    if (plane.kind == model::PlaneKind::kDevice || !step_threads.contains({plane.host, line.id})) continue;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (!frame_name[p.events.name[e]]) continue;
      const int64_t overlap = covered_length(sa.input_wait, {p.start_ps(e), p.end_ps(e)});
      if (overlap > 0) in_wait.emplace_back(e, overlap);
    }
  }
  auto overlap_of = [&](EventIndex e) -> int64_t {
    auto it = std::lower_bound(in_wait.begin(), in_wait.end(), std::pair<EventIndex, int64_t>{e, INT64_MIN});
    return it != in_wait.end() && it->first == e ? it->second : 0;
  };
  std::sort(in_wait.begin(), in_wait.end());
  auto frame_parent = [&](EventIndex e) {
    for (EventIndex a = p.events.parent[e]; a != kNone; a = p.events.parent[a])
      if (frame_name[p.events.name[a]]) return a;
    return kNone;
  };
  auto depth_of = [&](EventIndex e) {
    int depth = 0;
    for (EventIndex a = frame_parent(e); a != kNone; a = frame_parent(a)) ++depth;
    return depth;
  };

  // The callee: the deepest frame holding at least half of the wait (its ancestors hold as much).
  EventIndex callee = kNone;
  int callee_depth = -1;
  int64_t callee_ps = 0;
  for (const auto& [e, overlap] : in_wait) {
    if (2 * overlap < wait_ps) continue;
    const int depth = depth_of(e);
    if (depth > callee_depth || (depth == callee_depth && overlap > callee_ps))
      callee = e, callee_depth = depth, callee_ps = overlap;
  }
  if (callee == kNone) return std::nullopt;
  // The stage: its outermost caller that is still input work.
  EventIndex stage = callee;
  for (EventIndex a = frame_parent(callee); a != kNone; a = frame_parent(a)) {
    if (double(overlap_of(a)) < kInputWorkShare * double(p.duration_ps(a))) break;
    stage = a;
  }
  InputWaitCallee out;
  out.wait_ps = wait_ps;
  out.stage = std::string(p.name(stage));
  out.stage_ps = overlap_of(stage);
  out.callee = std::string(p.name(callee));
  out.callee_ps = callee_ps;
  return out;
}

}  // namespace mlprof::analysis
