#include "analysis/gpu_timeline/collective_calls.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/gpu_timeline/collective_args.h"
#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::Profile;

// A selected step of the host, by its window.
struct StepWindow {
  int64_t begin_ps, end_ps, step_num;
  EventIndex root;
};

const StepWindow* step_at(const std::vector<StepWindow>& steps, int64_t t) {
  auto it = std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const StepWindow& s) { return v < s.begin_ps; });
  if (it == steps.begin()) return nullptr;
  --it;
  return t < it->end_ps ? &*it : nullptr;
}

// A call and the thread line it was made from (kNone: not known).
struct Located {
  CollectiveCall call;
  uint32_t line = model::kNone;
  EventIndex launch = model::kNone;  // the runtime call that launched a kernel
};

// Self time by op name inside each window of a thread's line: an event's time less that of the
// events nested in it, clipped to the windows. Time the step's root covers alone is untraced.
class BeforeTime {
 public:
  BeforeTime(const Profile& p, const std::vector<StepWindow>& steps) : p_(p) {
    for (const StepWindow& s : steps)
      if (s.root != model::kNone) roots_.push_back(s.root);
    std::sort(roots_.begin(), roots_.end());
  }

  // `windows` sorted and disjoint; `out[k]` gets the time by name inside windows[k].
  void measure(uint32_t line_index, const std::vector<std::pair<int64_t, int64_t>>& windows,
               std::vector<std::unordered_map<std::string_view, int64_t>>& out) {
    if (windows.empty()) return;
    const model::Line& line = p_.lines[line_index];
    struct Open {
      EventIndex event;
      int64_t cursor;  // its self time so far ends here
    };
    std::vector<Open> open;
    auto attribute = [&](EventIndex e, int64_t from, int64_t to) {
      if (to <= from) return;
      const bool root = std::binary_search(roots_.begin(), roots_.end(), e);
      const std::string_view name = root ? kUntracedTime : p_.name(e);
      if (!root && is_host_collective_name(name)) return;  // the call itself is the wait
      auto it = std::upper_bound(windows.begin(), windows.end(), from,
                                 [](int64_t v, const std::pair<int64_t, int64_t>& w) { return v < w.first; });
      if (it != windows.begin()) --it;
      for (; it != windows.end() && it->first < to; ++it) {
        const int64_t overlap = std::min(to, it->second) - std::max(from, it->first);
        if (overlap > 0) out[size_t(it - windows.begin())][name] += overlap;
      }
    };
    auto close_top = [&] {
      const Open o = open.back();
      open.pop_back();
      attribute(o.event, o.cursor, p_.end_ps(o.event));
    };
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const EventIndex parent = p_.events.parent[e];
      while (!open.empty() && open.back().event != parent) close_top();
      if (!open.empty()) {
        attribute(open.back().event, open.back().cursor, p_.start_ps(e));
        open.back().cursor = std::max(open.back().cursor, p_.end_ps(e));
      }
      open.push_back({e, p_.start_ps(e)});
    }
    while (!open.empty()) close_top();
  }

 private:
  const Profile& p_;
  std::vector<EventIndex> roots_;
};

// Whether `name` starts with one of the '|'-separated prefixes.
bool has_prefix_of(std::string_view name, std::string_view prefixes) {
  while (!prefixes.empty()) {
    const size_t bar = prefixes.find('|');
    const std::string_view prefix = prefixes.substr(0, bar);
    if (name.substr(0, prefix.size()) == prefix) return true;
    if (bar == std::string_view::npos) break;
    prefixes.remove_prefix(bar + 1);
  }
  return false;
}

// Whether an ancestor of e on its line is a host collective (then e is part of that call).
bool inside_host_collective(const Profile& p, EventIndex e) {
  for (EventIndex a = p.events.parent[e]; a != model::kNone; a = p.events.parent[a])
    if (is_host_collective_name(p.name(a))) return true;
  return false;
}

// Compute kernels of the host's GPUs inside [previous device call's end or step start, call
// start), clipped, by kernel name with " (GPU)" after it.
void add_device_time_before(const Profile& p, const GpuActivity& gpu, uint32_t host,
                            const std::vector<StepWindow>& steps, std::vector<Located>& calls) {
  struct Item {
    int64_t begin, end;
    model::StringId name;
  };
  // Without a call on the GPUs there is nothing to measure: the host's kernels are not gathered
  // (24 bytes each, millions in a long run).
  if (std::none_of(calls.begin(), calls.end(), [](const Located& c) { return c.call.on_device; })) return;
  std::vector<Item> items;
  int64_t longest = 0;
  for (const HostGpuActivity& h : gpu.hosts) {
    if (h.host != host) continue;
    items.reserve(items.size() + h.work.size());
    for (const GpuWork& w : h.work)
      if (w.kind == GpuWorkKind::kComputation) {
        items.push_back({p.start_ps(w.event), p.end_ps(w.event), p.name_id(w.event)});
        longest = std::max(longest, p.duration_ps(w.event));
      }
  }
  if (items.empty()) return;
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.begin < b.begin; });
  int64_t previous_end = INT64_MIN, previous_step = INT64_MIN;
  for (Located& c : calls) {
    if (!c.call.on_device) continue;
    const StepWindow* step = step_at(steps, c.call.start_ps);
    const int64_t from = std::max(step->begin_ps, previous_step == c.call.step_num ? previous_end : INT64_MIN);
    const int64_t to = c.call.start_ps;
    previous_end = std::max(previous_end, c.call.end_ps());
    previous_step = c.call.step_num;
    if (to <= from) continue;
    std::unordered_map<model::StringId, int64_t> by_name;
    auto it = std::lower_bound(items.begin(), items.end(), from - longest, [](const Item& a, int64_t v) { return a.begin < v; });
    for (; it != items.end() && it->begin < to; ++it) {
      const int64_t overlap = std::min(to, it->end) - std::max(from, it->begin);
      if (overlap > 0) by_name[it->name] += overlap;
    }
    for (const auto& [name, ps] : by_name) c.call.before.emplace_back(std::string(p.strings.view(name)) + " (GPU)", ps);
  }
}

}  // namespace

bool is_host_collective_name(std::string_view name) {
  for (std::string_view prefix : {"gloo:", "nccl:", "c10d::", "c10d:"})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::vector<CollectiveCall> collect_collective_calls(const Profile& p, const StepGrouping& grouping,
                                                     const GpuActivity& gpu, uint32_t host) {
  std::vector<StepWindow> steps;
  for (uint32_t s : grouping.selected) {
    const Step& step = grouping.steps[s];
    if (step.host == host) steps.push_back({step.begin_ps, step.end_ps, step.step_num, step.root});
  }
  std::sort(steps.begin(), steps.end(), [](const StepWindow& a, const StepWindow& b) { return a.begin_ps < b.begin_ps; });
  std::vector<Located> calls;
  if (steps.empty()) return {};

  // Collective kernels on the host's GPUs. A host with GPU work is never read from its host
  // records: there nccl:* and c10d:: ops only launch the kernels and do not wait.
  bool has_gpu_work = false;
  for (const HostGpuActivity& h : gpu.hosts) {
    if (h.host != host) continue;
    has_gpu_work |= !h.work.empty();
    for (const GpuWork& w : h.work) {
      if (w.kind != GpuWorkKind::kCommunication) continue;
      const int64_t start = p.start_ps(w.event);
      const StepWindow* step = step_at(steps, start);
      if (!step) continue;
      Located c;
      c.call.name = std::string(p.name(w.event));
      c.call.step_num = step->step_num;
      c.call.start_ps = start;
      c.call.duration_ps = p.duration_ps(w.event);
      c.call.on_device = true;
      c.call.event = w.event;
      c.launch = w.launch;
      if (w.launch != model::kNone) c.line = p.line_index(w.launch);
      calls.push_back(std::move(c));
    }
  }
  // Without them, the collective ops of the host's threads: the process group's own records
  // (gloo:*, nccl:*, which span from the call's arrival to its end, often on a thread of the
  // group), else the dispatcher's c10d:: ops. What the rank did before a call is read on the
  // thread that runs its step.
  for (std::string_view prefixes : {"gloo:|nccl:", "c10d:"}) {
    if (!calls.empty() || has_gpu_work) break;
    const model::Host& h = p.hosts[host];
    for (uint32_t pl = h.first_plane; pl < h.first_plane + h.num_planes; ++pl) {
      const model::Plane& plane = p.planes[pl];
      if (plane.kind != model::PlaneKind::kHostThreads) continue;
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
        const model::Line& line = p.lines[l];
        for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
          if (!has_prefix_of(p.name(e), prefixes) || inside_host_collective(p, e)) continue;
          const StepWindow* step = step_at(steps, p.start_ps(e));
          if (!step) continue;
          Located c;
          c.call.name = std::string(p.name(e));
          c.call.step_num = step->step_num;
          c.call.start_ps = p.start_ps(e);
          c.call.duration_ps = p.duration_ps(e);
          c.call.event = e;
          c.line = step->root != model::kNone ? p.line_index(step->root) : l;
          calls.push_back(std::move(c));
        }
      }
    }
  }
  std::sort(calls.begin(), calls.end(), [](const Located& a, const Located& b) { return a.call.start_ps < b.call.start_ps; });

  // Each call's process group, from the call or the ops around it (a kernel's launch).
  CollectiveArgReader args(p);
  for (Located& c : calls) {
    EventIndex from = c.call.event;
    if (c.call.on_device && !args.named(from)) from = c.launch;
    if (from != model::kNone) c.call.group = std::string(args.of_or_around(from).group);
  }
  // Each call's place among the step's calls of its name, and of its name in its group.
  std::map<std::pair<int64_t, std::string>, uint32_t> seen;
  std::map<std::tuple<int64_t, std::string, std::string>, uint32_t> seen_in_group;
  for (Located& c : calls) {
    c.call.index = seen[{c.call.step_num, c.call.name}]++;
    c.call.group_index = seen_in_group[{c.call.step_num, c.call.group, c.call.name}]++;
  }

  // What the calling thread did before each call: from the previous call from that thread (or
  // the step's start) to this one.
  BeforeTime before(p, steps);
  std::map<uint32_t, std::vector<size_t>> by_line;
  for (size_t i = 0; i < calls.size(); ++i)
    if (calls[i].line != model::kNone) by_line[calls[i].line].push_back(i);
  for (const auto& [line, indices] : by_line) {
    std::vector<std::pair<int64_t, int64_t>> windows;
    std::vector<size_t> owner;
    int64_t previous_end = INT64_MIN;
    int64_t previous_step = INT64_MIN;
    for (size_t i : indices) {
      const CollectiveCall& c = calls[i].call;
      const StepWindow* step = step_at(steps, c.start_ps);
      int64_t from = step->begin_ps;
      if (previous_step == c.step_num) from = std::max(from, previous_end);
      if (!windows.empty()) from = std::max(from, windows.back().second);
      if (c.start_ps > from) {
        windows.push_back({from, c.start_ps});
        owner.push_back(i);
      }
      previous_end = std::max(previous_end, c.end_ps());
      previous_step = c.step_num;
    }
    std::vector<std::unordered_map<std::string_view, int64_t>> time(windows.size());
    before.measure(line, windows, time);
    for (size_t k = 0; k < windows.size(); ++k) {
      auto& out = calls[owner[k]].call.before;
      for (const auto& [name, ps] : time[k]) out.emplace_back(std::string(name), ps);
    }
  }
  // For calls on the GPUs, also the compute kernels the GPUs ran since the previous call.
  add_device_time_before(p, gpu, host, steps, calls);
  for (Located& c : calls) {
    auto& out = c.call.before;
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second || (a.second == b.second && a.first < b.first); });
    if (out.size() > kMaxBefore) out.resize(kMaxBefore);
  }
  std::vector<CollectiveCall> out;
  out.reserve(calls.size());
  for (Located& c : calls) out.push_back(std::move(c.call));
  return out;
}

std::vector<MatchedCall> match_collective_calls(const std::vector<const std::vector<CollectiveCall>*>& calls) {
  std::map<std::tuple<int64_t, std::string, std::string, uint32_t>, MatchedCall> matched;
  for (size_t r = 0; r < calls.size(); ++r)
    for (const CollectiveCall& c : *calls[r])
      matched[{c.step_num, c.group, c.name, c.group_index}].ranks.push_back({r, &c});
  std::vector<MatchedCall> out;
  for (auto& [key, call] : matched) {
    if (call.ranks.size() < 2) continue;
    std::vector<double> ends, durations;
    for (const auto& [r, c] : call.ranks) ends.push_back(double(c->end_ps())), durations.push_back(double(c->duration_ps));
    const double spread = *std::max_element(ends.begin(), ends.end()) - *std::min_element(ends.begin(), ends.end());
    std::sort(durations.begin(), durations.end());
    const size_t mid = durations.size() / 2;
    const double median = durations.size() % 2 ? durations[mid] : (durations[mid - 1] + durations[mid]) / 2;
    call.clocks_agree = spread <= std::max(50e6, 0.1 * median);  // 50 us, or a tenth of the call
    out.push_back(std::move(call));
  }
  return out;
}

}  // namespace mlprof::analysis
