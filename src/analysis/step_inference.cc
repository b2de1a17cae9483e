#include "analysis/step_inference.h"

#include <algorithm>
#include <unordered_map>

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

// Events whose name starts with `prefix` and that no such event encloses, on one host thread:
// of each name (or all names alike, with `by_name` false) on each thread, the one that ran at
// least twice with the most time. Each call begins a step, which lasts until the next call.
InferredSteps repeated_host_calls(const Profile& p, uint32_t host, std::string_view prefix, bool by_name,
                                  std::string_view kind) {
  InferredSteps out;
  int64_t best_ps = -1;
  const model::Host& h = p.hosts[host];
  for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes; ++pl) {
    const model::Plane& plane = p.planes[pl];
    if (plane.kind != PlaneKind::kHostThreads) continue;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const model::Line& line = p.lines[l];
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
    }
  }
  if (out.roots.empty()) return out;
  for (size_t i = 0; i < out.roots.size(); ++i)
    out.end_ps.push_back(i + 1 < out.roots.size() ? p.start_ps(out.roots[i + 1]) : p.end_ps(out.roots[i]));
  out.kind = std::string(kind);
  out.last_incomplete = true;
  return out;
}

}  // namespace

InferredSteps infer_steps(const Profile& p, uint32_t host) {
  InferredSteps modules = module_runs(p, host);
  if (!modules.roots.empty()) return modules;
  // JAX dispatches each jitted call as PjitFunction(name): the step is the one called again and again.
  InferredSteps jit = repeated_host_calls(p, host, "PjitFunction(", true, kJitCallSteps);
  if (!jit.roots.empty()) return jit;
  return repeated_host_calls(p, host, "enumerate(DataLoader)", false, kDataLoaderFetchSteps);
}

}  // namespace mlprof::analysis
