#include "analysis/step_inference.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::LineKind;
using model::PlaneKind;
using model::Profile;

// The module that ran at least twice with the most time, on the host's first device that runs
// modules: each run is a step, until the next run of it.
InferredSteps module_runs(const Profile& p, uint32_t host) {
  InferredSteps out;
  const model::Host& h = p.hosts[host];
  for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes && out.roots.empty(); ++pl) {
    const model::Plane& plane = p.planes[pl];
    if (plane.kind != PlaneKind::kDevice) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
      if (line.kind != LineKind::kXlaModules || line.num_events == 0) continue;
      struct Runs { size_t count = 0; int64_t ps = 0; };
      std::unordered_map<model::StringId, Runs> by_name;
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
        if (p.events.parent[e] == model::kNone) ++by_name[p.name_id(e)].count, by_name[p.name_id(e)].ps += p.duration_ps(e);
      model::StringId best = model::kNoString;
      int64_t best_ps = -1;
      for (const auto& [name, runs] : by_name)
        if (runs.count >= 2 && (runs.ps > best_ps || (runs.ps == best_ps && name < best))) best = name, best_ps = runs.ps;
      if (best == model::kNoString) continue;
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
        if (p.events.parent[e] == model::kNone && p.name_id(e) == best) out.roots.push_back(e);
      break;
    }
  }
  if (out.roots.empty()) return out;
  std::sort(out.roots.begin(), out.roots.end(), [&](EventIndex a, EventIndex b) { return p.start_ps(a) < p.start_ps(b); });
  for (size_t i = 0; i < out.roots.size(); ++i)
    out.end_ps.push_back(i + 1 < out.roots.size() ? p.start_ps(out.roots[i + 1]) : p.end_ps(out.roots[i]));
  out.kind = std::string(kModuleRunSteps);
  out.last_incomplete = true;
  return out;
}

// Calls `visit` with each host-thread line of the host, in order.
template <typename Visit>
void for_each_thread_line(const Profile& p, uint32_t host, Visit&& visit) {
  const model::Host& h = p.hosts[host];
  for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes; ++pl) {
    const model::Plane& plane = p.planes[pl];
    if (plane.kind != PlaneKind::kHostThreads) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) visit(p.lines[l]);
  }
}

// Events whose name starts with `prefix` and that no such event encloses, on one host thread:
// of each name (or all names alike, with `by_name` false) on each thread, the one that ran at
// least twice with the most time. Each call begins a step, which lasts until the next call.
InferredSteps repeated_host_calls(const Profile& p, uint32_t host, std::string_view prefix, bool by_name,
                                  std::string_view kind) {
  InferredSteps out;
  int64_t best_ps = -1;
  for_each_thread_line(p, host, [&](const model::Line& line) {
    std::unordered_map<model::StringId, std::vector<EventIndex>> calls;
    std::vector<uint8_t> inside(line.num_events, 0);  // in a call: parents come before children
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const EventIndex parent = p.events.parent[e];
      const bool nested = parent != model::kNone && inside[parent - line.first_event];
      const bool call = p.name(e).starts_with(prefix);
      inside[e - line.first_event] = nested || call;
      if (call && !nested) calls[by_name ? p.name_id(e) : model::StringId(0)].push_back(e);
    }
    for (auto& [name, list] : calls) {
      int64_t ps = 0;
      for (EventIndex e : list) ps += p.duration_ps(e);
      if (list.size() >= 2 && ps > best_ps) best_ps = ps, out.roots = std::move(list);
    }
  });
  if (out.roots.empty()) return out;
  for (size_t i = 0; i < out.roots.size(); ++i)
    out.end_ps.push_back(i + 1 < out.roots.size() ? p.start_ps(out.roots[i + 1]) : p.end_ps(out.roots[i]));
  out.kind = std::string(kind);
  out.last_incomplete = true;
  return out;
}

// Periods are looked for among the first items only (the search is quadratic), then followed to
// the end.
constexpr size_t kMaxSearchedItems = 4096;

// One item of a repeated sequence: a kernel (with the call that launched it) or a host op.
struct SequenceItem {
  EventIndex event = model::kNone, launch = model::kNone;
  int64_t start = 0, end = 0;
  uint32_t name = 0;
};

// The computing kernels of the host's devices, in the order they start.
std::vector<SequenceItem> kernel_items(const Profile& p, uint32_t host) {
  std::vector<SequenceItem> items;
  const GpuActivity activity = collect_all_gpu_activity(p);
  for (const HostGpuActivity& h : activity.hosts) {
    if (h.host != host) continue;
    for (const GpuWork& w : h.work)
      if (w.kind == GpuWorkKind::kComputation)
        items.push_back({w.event, w.launch, p.start_ps(w.event), p.end_ps(w.event), p.name_id(w.event)});
  }
  std::sort(items.begin(), items.end(), [](const SequenceItem& a, const SequenceItem& b) {
    return a.start != b.start ? a.start < b.start : a.event < b.event;
  });
  return items;
}

// The top-level ops of the host's thread that has the most of them.
std::vector<SequenceItem> host_op_items(const Profile& p, uint32_t host) {
  std::vector<SequenceItem> best;
  for_each_thread_line(p, host, [&](const model::Line& line) {
    std::vector<SequenceItem> items;
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (p.events.parent[e] == model::kNone) items.push_back({e, model::kNone, p.start_ps(e), p.end_ps(e), p.name_id(e)});
    if (items.size() > best.size()) best = std::move(items);
  });
  return best;
}

bool encloses(const Profile& p, EventIndex outer, EventIndex inner) {
  if (inner == model::kNone) return false;
  return p.line_index(outer) == p.line_index(inner) && p.start_ps(outer) <= p.start_ps(inner) &&
         p.end_ps(inner) <= p.end_ps(outer);
}

// The innermost host event around the launches of items [b, e) (on the first launch's thread),
// else the outermost around the first launch; kNone when an item has no launch.
EventIndex around_launches(const Profile& p, const std::vector<SequenceItem>& items, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i)
    if (items[i].launch == model::kNone) return model::kNone;
  EventIndex outermost = items[b].launch;
  for (EventIndex a = p.events.parent[items[b].launch]; a != model::kNone; a = p.events.parent[a]) {
    outermost = a;
    bool all = true;
    for (size_t i = b + 1; i < e && all; ++i)
      all = p.line_index(items[i].launch) != p.line_index(a) || encloses(p, a, items[i].launch);
    if (all) return a;
  }
  return outermost;
}

// Steps from the repeats of `items`' names: each repeat a step, rooted at the host event around
// its launches (else its first item). Nothing when the event around one repeat's launches holds
// another's too: the repeats are parts of one iteration (a model's layers), never split.
InferredSteps repeated_sequence(const Profile& p, const std::vector<SequenceItem>& items, std::string_view what) {
  InferredSteps out;
  std::vector<uint32_t> names;
  names.reserve(items.size());
  for (const SequenceItem& item : items) names.push_back(item.name);
  const SequencePeriod sp = find_sequence_period(names);
  if (sp.period == 0) return out;
  const size_t period = sp.period, last = sp.first + sp.covered;
  // Where in the cycle an iteration begins: after an optimizer step, else after the longest
  // pauses (between iterations the program does something else: fetches, logs, synchronises);
  // the host's pauses between launches where it launched them (the device lags behind the
  // host), else the device's.
  std::vector<int64_t> ended_by(items.size() + 1, INT64_MIN);
  for (size_t i = 0; i < items.size(); ++i) ended_by[i + 1] = std::max(ended_by[i], items[i].end);
  auto pause_before = [&](size_t i) -> int64_t {
    if (i == 0) return 0;
    const EventIndex launch = items[i].launch, before = items[i - 1].launch;
    if (launch != model::kNone && before != model::kNone) return std::max<int64_t>(0, p.start_ps(launch) - p.end_ps(before));
    return std::max<int64_t>(0, items[i].start - ended_by[i]);
  };
  // PyTorch marks each optimizer step (Optimizer.step#SGD.step): an iteration ends with one.
  std::vector<uint8_t> in_optimizer_step(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i)
    for (EventIndex a = items[i].launch; a != model::kNone && !in_optimizer_step[i]; a = p.events.parent[a])
      in_optimizer_step[i] = p.name(a).starts_with("Optimizer.step");
  auto ends_optimizer_step = [&](size_t i) { return i > 0 && in_optimizer_step[i - 1] && !in_optimizer_step[i]; };
  size_t phase = 0;
  int64_t longest = -1;
  size_t most_after_step = 0;
  for (size_t r = 0; r < period && sp.first + r + 2 * period <= last; ++r) {
    int64_t pause = 0;
    size_t after_step = 0;
    for (size_t i = sp.first + r; i + period <= last; i += period) pause += pause_before(i), after_step += ends_optimizer_step(i);
    if (after_step > most_after_step || (after_step == most_after_step && pause > longest))
      longest = pause, phase = r, most_after_step = after_step;
  }
  std::vector<std::pair<size_t, size_t>> repeats;  // [begin, end) of items
  for (size_t b = sp.first + phase; b + period <= last; b += period) repeats.emplace_back(b, b + period);
  for (size_t k = 0; k < repeats.size(); ++k) {
    const auto [b, e] = repeats[k];
    EventIndex root = around_launches(p, items, b, e);
    if (root != model::kNone) {
      const bool holds_previous = k > 0 && encloses(p, root, items[b - 1].launch);
      const bool holds_next = k + 1 < repeats.size() && encloses(p, root, items[e].launch);
      if (holds_previous || holds_next) return {};
    } else {
      root = items[b].event;
    }
    out.roots.push_back(root);
  }
  for (size_t k = 0; k < out.roots.size(); ++k) {
    const int64_t work_end = ended_by[repeats[k].second];
    out.end_ps.push_back(k + 1 < out.roots.size() ? p.start_ps(out.roots[k + 1])
                                                  : std::max(p.end_ps(out.roots[k]), work_end));
  }
  out.kind = fmt::format("{}{} {}", kRepeatedSequenceSteps, period, what);
  out.last_incomplete = false;  // every repeat is whole
  return out;
}

}  // namespace

SequencePeriod find_sequence_period(const std::vector<uint32_t>& names) {
  const size_t n = std::min(names.size(), kMaxSearchedItems);
  SequencePeriod best;
  // One name over and over is a loop inside an op, not an iteration: two items at least.
  for (size_t period = 2; 2 * period <= n; ++period) {
    size_t run = 0, first = 0, best_run = 0, best_first = 0;
    for (size_t i = 0; i + period < n; ++i) {
      if (names[i] != names[i + period]) {
        run = 0;
        continue;
      }
      if (run++ == 0) first = i;
      if (run > best_run) best_run = run, best_first = first;
    }
    if (best_run < period) continue;  // not two whole repeats
    if (best_run + period > best.covered) best = {period, best_first, best_run + period};
  }
  if (best.period == 0) return best;
  size_t end = best.first + best.covered;
  if (end == n)  // the repeats may go on past the items searched
    while (end < names.size() && names[end] == names[end - best.period]) ++end;
  best.covered = end - best.first;
  if (3 * best.covered < 2 * names.size()) return {};  // the repeats are most of the sequence
  std::vector<uint32_t> one(names.begin() + ptrdiff_t(best.first), names.begin() + ptrdiff_t(best.first + best.period));
  std::sort(one.begin(), one.end());
  if (std::unique(one.begin(), one.end()) - one.begin() < 2) return {};  // a repeat names two things at least
  return best;
}

InferredSteps infer_steps(const Profile& p, uint32_t host) {
  InferredSteps modules = module_runs(p, host);
  if (!modules.roots.empty()) return modules;
  // JAX dispatches each jitted call as PjitFunction(name): the step is the one called again and again.
  InferredSteps jit = repeated_host_calls(p, host, "PjitFunction(", true, kJitCallSteps);
  if (!jit.roots.empty()) return jit;
  InferredSteps fetches = repeated_host_calls(p, host, "enumerate(DataLoader)", false, kDataLoaderFetchSteps);
  if (!fetches.roots.empty()) return fetches;
  if (std::vector<SequenceItem> kernels = kernel_items(p, host); !kernels.empty())
    return repeated_sequence(p, kernels, "kernels");
  return repeated_sequence(p, host_op_items(p, host), "host ops");
}

}  // namespace mlprof::analysis
