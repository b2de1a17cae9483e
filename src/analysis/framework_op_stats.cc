#include "analysis/framework_op_stats.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/csv.h"
#include "analysis/op_stats_ranks.h"
#include "analysis/radix_sort.h"
#include "analysis/event_kinds.h"
#include "analysis/hlo_ops.h"
#include "analysis/interval_union.h"
#include "analysis/self_time.h"
#include "analysis/sort_runs.h"
#include "analysis/units.h"
#include "analysis/whole_profile_window.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;
using model::LineKind;
using model::PlaneKind;
using model::Profile;
using model::StringId;

constexpr size_t kPieSlices = 20;

struct OpTotals {
  uint64_t occurrences = 0;
  uint64_t kernels = 0;
  int64_t total_ps = 0;
  int64_t self_ps = 0;
};

// Which host events are ops. In a TensorFlow profile only "name:Type" ops and tf.data
// iterators are; elsewhere every annotation is, except step markers and allocator records.
class HostOpFilter {
 public:
  explicit HostOpFilter(const Profile& p) : p_(p), is_op_(p.names.size(), 0) {
    const bool tensorflow = has_tensorflow_op_names(p);
    for (size_t i = 0; i < p.names.size(); ++i) {
      const std::string_view name = p.strings.view(p.names[i].name);
      if (tensorflow) is_op_[i] = is_tf_op_name(name) || is_iterator_name(name);
      else is_op_[i] = !is_memory_event_name(name) && implicit_root_rank(name) < 0 && !name.empty();
      // A step marker whose _r came with its name ("train#step_num=1,_r=1#") is no op either.
      const auto r = p.names[i].stats;
      for (uint32_t s = r.first; s < r.first + r.count; ++s)
        if (p.metadata_stats.key(s) == model::kIsRoot && p.metadata_stats.value(s).as_int() != 0) is_op_[i] = 0;
    }
  }
  bool operator()(EventIndex e) const {
    if (!is_op_[p_.events.name[e]]) return false;
    // The event's own _r, as Profile::stat reads it; its name's, which comes after, is read
    // above (an op's name has none that is set): an op's name can carry many stats.
    for (uint32_t i = p_.events.first_stat[e], end = p_.events.first_stat[e + 1]; i < end; ++i)
      if (p_.event_stats.key(i) == model::kIsRoot) return p_.event_stats.value(i).as_int() == 0;
    return true;
  }

 private:
  const Profile& p_;
  std::vector<uint8_t> is_op_;
};

// Totals by op name: by NameIndex while scanning (an array lookup), folded by name at the end
// (several EventNames can share one name, e.g. one per device plane).
struct SideTotals {
  std::vector<OpTotals> by_name_index;
  std::unordered_map<StringId, OpTotals> by_name;

  void add_name_index(model::NameIndex n, int64_t total_ps, int64_t self_ps) {
    if (n >= by_name_index.size()) by_name_index.resize(n + 1);
    accumulate(by_name_index[n], total_ps, self_ps);
  }
  void add_name(StringId name, int64_t total_ps, int64_t self_ps) { accumulate(by_name[name], total_ps, self_ps); }
  void fold(const Profile& p) {
    for (size_t n = 0; n < by_name_index.size(); ++n) {
      const OpTotals& t = by_name_index[n];
      if (t.occurrences == 0) continue;
      OpTotals& into = by_name[p.names[n].name];
      into.occurrences += t.occurrences;
      into.kernels += t.kernels;
      into.total_ps += t.total_ps;
      into.self_ps += t.self_ps;
    }
    by_name_index.clear();
  }

 private:
  static void accumulate(OpTotals& t, int64_t total_ps, int64_t self_ps) {
    ++t.occurrences;
    t.total_ps += total_ps;
    t.self_ps += self_ps;
  }

 public:
  // Device work with no op call to count: each item is an occurrence of itself.
  void add_kernel(StringId name, int64_t duration_ps) {
    OpTotals& t = by_name[name];
    accumulate(t, duration_ps, duration_ps);
    ++t.kernels;
  }

};

// The op a device event ran for: the host op that launched it (the innermost op around the
// runtime call with its correlation id), else its tf_op stat (a name alone: no calls to count).
class DeviceOpFinder {
 public:
  // `launches`: the profile's join of launches (launch_join.h), or null to make one on first need.
  DeviceOpFinder(const Profile& p, const HostOpFilter& host_ops, const LaunchJoin* launches)
      : p_(p), host_ops_(host_ops), launches_(launches) {}

  StringId tf_op(EventIndex e) const {
    // XLA ops on TPUs carry tf_op in their metadata (their name's stats), not on each event.
    if (p_.events.first_stat[e] == p_.events.first_stat[e + 1] && p_.names[p_.events.name[e]].stats.count == 0)
      return model::kNoString;
    // JAX names every XLA kernel's tf_op "XlaModule:"; its HLO op is the op it ran for.
    // An empty tf_op (XLA's own ops: copies, loop fusions) names no framework op.
    if (auto op = p_.stat(e, model::kTfOp); op && op->type == model::StatType::kString && !p_.string_of(*op).empty())
      return xla_kernel_op(p_, e, op->str);
    return model::kNoString;
  }

  // The op around the first call with device event e's id (on device line `line`) that has one.
  // Only the events' own stats count here: a correlation id on a name alone joins nothing.
  EventIndex launcher(uint32_t line, EventIndex e) {
    if (p_.events.first_stat[e] == p_.events.first_stat[e + 1]) return kNone;
    if (launches_ == nullptr) launches_ = &own_launches_.emplace(p_);
    EventIndex op = kNone;
    launches_->launch_of(line, e, [&](EventIndex call) {
      if (p_.events.first_stat[call] == p_.events.first_stat[call + 1]) return false;
      op = enclosing_op(call);
      return op != kNone;
    });
    return op;
  }

  // The name of the op a device item's self time is charged to, in op_stats_totals' order.
  StringId charged_op_name(uint32_t line, EventIndex e) {
    if (const EventIndex op = launcher(line, e); op != kNone) return p_.name_id(op);
    if (const StringId op = tf_op(e); op != model::kNoString) return op;
    return p_.name_id(e);
  }

  // The host op enclosing `op` (kNone at the top).
  EventIndex enclosing_op(EventIndex op) const {
    EventIndex up = p_.events.parent[op];
    while (up != kNone && !host_ops_(up)) up = p_.events.parent[up];
    return up;
  }

 private:
  const Profile& p_;
  const HostOpFilter& host_ops_;
  const LaunchJoin* launches_;
  std::optional<LaunchJoin> own_launches_;
};

// Device time by the host op calls that launched it: self for the launching op, total for it
// and every op enclosing it (§5.3), folded into rows by name at the end. One 16-byte record per
// launching call, sorted by call and folded up the op tree with a stack of the open enclosing
// ops (a call's descendants follow it on its line): a tree map over every call and its
// enclosing ops cost 30 bytes an event and 0.6 s at 10 M events.
class DeviceTimeByCall {
 public:
  void reserve(size_t calls) { calls_.reserve(calls); }
  void start_run() { runs_.push_back(calls_.size()); }  // one per device line: its calls mostly ascend
  void add(EventIndex launcher, int64_t duration_ps) {
    if (calls_.empty() || calls_.back().op != launcher) calls_.push_back({launcher, 0, 0});
    calls_.back().self_ps += duration_ps;
    ++calls_.back().kernels;
  }

  void fold_into(const Profile& p, const DeviceOpFinder& finder, SideTotals& side) {
    if (runs_.empty() || runs_.front() != 0) runs_.insert(runs_.begin(), 0);
    auto by_op = [](const Call& a, const Call& b) { return a.op < b.op; };
    // A stream's calls ascend unless threads launch onto it by turns: then its run is in no
    // order, and the calls are sorted by their op in linear passes. Calls of one op may come in
    // any order: their sums are the same.
    bool runs_sorted = true;
    for (size_t r = 0; runs_sorted && r < runs_.size(); ++r)
      runs_sorted = std::is_sorted(calls_.begin() + ptrdiff_t(runs_[r]),
                                   r + 1 < runs_.size() ? calls_.begin() + ptrdiff_t(runs_[r + 1]) : calls_.end(), by_op);
    if (runs_sorted) sort_runs(calls_, std::move(runs_), by_op);
    else radix_sort(calls_, [](const Call& c) { return c.op; });
    // open[i + 1]'s enclosing op is open[i]; open[0] encloses nothing.
    std::vector<Open> open;
    std::vector<EventIndex> path;
    auto close = [&] {
      const Open o = open.back();
      open.pop_back();
      OpTotals& row = side.by_name[p.name_id(o.op)];
      ++row.occurrences;
      row.kernels += o.kernels;
      row.total_ps += o.total_ps;
      row.self_ps += o.self_ps;
      if (!open.empty()) open.back().total_ps += o.total_ps, open.back().kernels += o.kernels;
    };
    for (const Call& c : calls_) {
      // Close the open ops that do not enclose c.op (calls come in index order, so they are
      // done), and open c.op and its enclosing ops up to the first one already open.
      path.clear();
      for (EventIndex up = c.op;;) {
        while (!open.empty() && open.back().op > up) close();
        if (!open.empty() && open.back().op == up) break;
        path.push_back(up);
        up = finder.enclosing_op(up);
        if (up == kNone) {
          while (!open.empty()) close();
          break;
        }
      }
      for (auto it = path.rbegin(); it != path.rend(); ++it) open.push_back({*it, 0, 0, 0});
      open.back().self_ps += c.self_ps;
      open.back().total_ps += c.self_ps;
      open.back().kernels += c.kernels;
    }
    while (!open.empty()) close();
    calls_ = {};
  }

 private:
  struct Call {
    EventIndex op;
    uint32_t kernels;
    int64_t self_ps;
  };
  struct Open {
    EventIndex op;
    uint64_t kernels;
    int64_t self_ps, total_ps;
  };
  std::vector<Call> calls_;
  std::vector<size_t> runs_;
};

// Devices: the framework-op line where the file has one, else the device's own work.
bool has_framework_op_line(const Profile& p, const model::Plane& plane) {
  for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
    if (p.lines[l].kind == LineKind::kFrameworkOps && p.lines[l].num_events > 0) return true;
  return false;
}
bool counts_device_ops(const model::Line& line, bool plane_has_op_line) {
  if (plane_has_op_line) return line.kind == LineKind::kFrameworkOps;
  return line.kind == LineKind::kStream || line.kind == LineKind::kXlaOps;
}

std::vector<PieSlice> pie(std::map<std::string, int64_t> self_by_key, int64_t denominator) {
  std::vector<PieSlice> slices;
  for (auto& [name, ps] : self_by_key) slices.push_back({name, ps, 0});
  std::sort(slices.begin(), slices.end(), [](const PieSlice& a, const PieSlice& b) { return a.self_ps > b.self_ps; });
  if (slices.size() > kPieSlices) {
    int64_t rest = 0;
    for (size_t i = kPieSlices; i < slices.size(); ++i) rest += slices[i].self_ps;
    slices.resize(kPieSlices);
    slices.push_back({"Other", rest, 0});
  }
  for (auto& s : slices) s.pct = denominator > 0 ? 100.0 * double(s.self_ps) / double(denominator) : 0;
  return slices;
}

// One side's rows (the ops' totals) with their types, in rank order with their shares, and
// its pies, into `out` (whose include_idle says whether an IDLE row of `idle_ps` goes in).
void emit_side(std::vector<OpStatsRow> rows, bool on_device, int64_t idle_ps, FrameworkOpStats* out) {
  int64_t total_self = idle_ps;
  for (OpStatsRow& r : rows) {
    r.type = std::string(op_type_of(r.name));
    // A tf_op is "name:type"; JAX's has no type after the ':', and XProf names the op without it.
    if (is_jax_op_name(r.name)) r.name.pop_back();
    total_self += r.self_ps;
  }
  if (out->include_idle && (idle_ps > 0 || !rows.empty())) {
    OpStatsRow idle;
    idle.on_device = on_device;
    idle.name = idle.type = "IDLE";
    idle.occurrences = 1;
    idle.total_ps = idle.self_ps = idle_ps;
    rows.push_back(idle);
  }
  std::sort(rows.begin(), rows.end(), [](const OpStatsRow& a, const OpStatsRow& b) {
    return a.self_ps != b.self_ps ? a.self_ps > b.self_ps : a.name < b.name;
  });
  double cumulative = 0;
  std::map<std::string, int64_t> by_op, by_type;
  for (auto& r : rows) {
    r.self_pct = total_self > 0 ? 100.0 * double(r.self_ps) / double(total_self) : 0;
    cumulative += r.self_pct;
    r.cumulative_self_pct = std::min(100.0, cumulative);
    by_op[r.name] += r.self_ps;
    by_type[r.type] += r.self_ps;
  }
  (on_device ? out->device_self_ps : out->host_self_ps) = total_self;
  (on_device ? out->device_by_op : out->host_by_op) = pie(std::move(by_op), total_self);
  (on_device ? out->device_by_type : out->host_by_type) = pie(std::move(by_type), total_self);
  out->rows.insert(out->rows.end(), rows.begin(), rows.end());
}

}  // namespace

OpStatsTotals op_stats_totals(const Profile& p, bool count_idle, std::optional<uint32_t> only_host,
                              const LaunchJoin* launches) {
  auto skipped = [&](const model::Plane& plane) { return only_host && plane.host != *only_host; };
  const FrameworkOpStatsOptions options{count_idle};
  OpStatsTotals out;
  out.hosts = only_host ? 1 : p.hosts.size();
  const HostOpFilter host_ops(p);
  DeviceOpFinder device_ops(p, host_ops, launches);
  DeviceTimeByCall device_calls;
  SideTotals host, device;
  auto all_events = [](EventIndex) { return true; };

  // Host: every thread of every host.
  std::vector<std::vector<TimeInterval>> host_busy(p.hosts.size());
  std::vector<std::pair<int64_t, int64_t>> host_span(p.hosts.size(), {INT64_MAX, INT64_MIN});
  for (const auto& line : p.lines) {
    const auto& plane = p.planes[line.plane];
    if (plane.kind != PlaneKind::kHostThreads || line.num_events == 0 || skipped(plane)) continue;
    for_each_op_self_time(
        p, line, host_ops,
        [&](EventIndex e, int64_t self) { host.add_name_index(p.events.name[e], p.duration_ps(e), self); },
        options.include_idle ? &host_busy[plane.host] : nullptr);
    auto& span = host_span[plane.host];
    span.first = std::min(span.first, p.start_ps(line.first_event));
    for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (p.events.parent[e] == kNone) span.second = std::max(span.second, p.end_ps(e));
  }

  // Devices: the framework-op line where the file has one, else the device's own work.
  auto has_op_line = [&](const model::Plane& plane) { return has_framework_op_line(p, plane); };
  // Items of work by their launching call: at most one call each, reserved at once, as there
  // can be millions.
  size_t device_work = 0;
  for (const auto& plane : p.planes)
    if (plane.kind == PlaneKind::kDevice && !has_op_line(plane) && !skipped(plane))
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
        if (counts_device_ops(p.lines[l], false)) device_work += p.lines[l].num_events;
  device_calls.reserve(device_work);
  // Where the op line gives the ops' times, its events say nothing of their kernels: each item
  // of the device's own work is charged to its op (launcher, else tf_op), as kernel_stats does.
  std::unordered_map<StringId, uint64_t> kernels_of_op_line_ops;
  for (const auto& plane : p.planes) {
    if (plane.kind != PlaneKind::kDevice || skipped(plane)) continue;
    const bool op_line = has_op_line(plane);
    if (op_line)
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
        if (counts_device_ops(p.lines[l], false))
          for (EventIndex e = p.lines[l].first_event; e < p.lines[l].first_event + p.lines[l].num_events; ++e)
            ++kernels_of_op_line_ops[device_ops.charged_op_name(l, e)];
    std::vector<TimeInterval> busy;
    int64_t begin = INT64_MAX, end = INT64_MIN;
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      const auto& line = p.lines[l];
      if (line.num_events == 0) continue;
      if (!counts_device_ops(line, op_line)) continue;
      if (op_line) {
        for_each_op_self_time(
            p, line, all_events,
            [&](EventIndex e, int64_t self) { device.add_name_index(p.events.name[e], p.duration_ps(e), self); },
            options.include_idle ? &busy : nullptr);
      } else {
        device_calls.start_run();
        for_each_op_self_time(
            p, line, all_events,
            [&](EventIndex e, int64_t self) {
              if (const EventIndex op = device_ops.launcher(l, e); op != kNone) return device_calls.add(op, self);
              if (const StringId op = device_ops.tf_op(e); op != model::kNoString) return device.add_kernel(op, self);
              // An XLA op without a framework op: its HLO op's name ("copy-done.2"), which the
              // file gives as the display name, not the instruction's whole text.
              const model::EventName& name = p.names[p.events.name[e]];
              const bool hlo_name = line.kind == LineKind::kXlaOps && name.display_name != model::kEmptyString;
              device.add_kernel(hlo_name ? name.display_name : name.name, self);
            },
            options.include_idle ? &busy : nullptr);
      }
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
        begin = std::min(begin, p.start_ps(e)), end = std::max(end, p.end_ps(e));
    }
    if (options.include_idle && begin < end) out.device_idle_ps += (end - begin) - union_length(busy);
  }
  if (options.include_idle)
    for (size_t h = 0; h < p.hosts.size(); ++h)
      if (host_span[h].first < host_span[h].second)
        out.host_idle_ps += (host_span[h].second - host_span[h].first) - union_length(host_busy[h]);

  host.fold(p);
  device.fold(p);
  for (auto& [name, t] : device.by_name)
    if (auto it = kernels_of_op_line_ops.find(name); it != kernels_of_op_line_ops.end()) t.kernels += it->second;
  device_calls.fold_into(p, device_ops, device);
  auto totals_of = [&](const SideTotals& side, bool on_device, std::map<std::string, OpStatsTotals::Op, std::less<>>* into) {
    for (const auto& [name, t] : side.by_name)
      into->emplace(std::string(p.strings.view(name)),
                    OpStatsTotals::Op{t.occurrences, on_device ? t.kernels : 0, t.total_ps, t.self_ps});
  };
  totals_of(device, true, &out.device);
  totals_of(host, false, &out.host);
  return out;
}

FrameworkOpStats compute_framework_op_stats(const Profile& p, const FrameworkOpStatsOptions& options) {
  return finish_op_stats(op_stats_totals(p, options.include_idle), options);
}

namespace {

// The analysed steps' windows (§5.1), per host in time order, each with the slot of its step
// number (steps of several hosts with one number share a slot).
class StepWindows {
 public:
  StepWindows(const Profile& p, const StepAnalysis& sa) : p_(p), sa_(sa), of_host_(p.hosts.size()) {
    std::map<int64_t, int32_t> slot_of_num;
    for (const StepBreakdown& s : sa.steps) {
      auto [it, added] = slot_of_num.emplace(s.step_num, int32_t(step_num_.size()));
      if (added) step_num_.push_back(s.step_num);
      if (!sa.whole_profile) of_host_[s.host].push_back({s.begin_ps, s.begin_ps + s.duration_ps, it->second});
    }
  }
  size_t slots() const { return step_num_.size(); }
  int64_t step_num(size_t slot) const { return step_num_[slot]; }

  // The slot of the window that holds e's start, or -1. As the step-time breakdown (§5.2)
  // charges time, an event of any step counts in the analysed windows of its step's host, and
  // the pseudo step of a profile without steps holds every event.
  int32_t slot_of(EventIndex e) const {
    if (sa_.whole_profile) return slots() > 0 ? 0 : -1;
    const int32_t group = sa_.grouping.group_of[e];
    if (group == kNoGroup) return -1;
    const std::vector<Window>& windows = of_host_[sa_.grouping.steps[size_t(group)].host];
    const int64_t t = p_.start_ps(e);
    auto it = std::upper_bound(windows.begin(), windows.end(), t, [](int64_t t, const Window& w) { return t < w.end_ps; });
    return it != windows.end() && it->begin_ps <= t ? it->slot : -1;
  }

 private:
  struct Window {
    int64_t begin_ps, end_ps;
    int32_t slot;
  };
  const Profile& p_;
  const StepAnalysis& sa_;
  std::vector<std::vector<Window>> of_host_;
  std::vector<int64_t> step_num_;
};

}  // namespace

StepOpTimes op_time_by_step(const Profile& p, const StepAnalysis& sa) {
  const StepWindows windows(p, sa);
  using BySlot = std::vector<std::unordered_map<StringId, OpInSteps>>;
  BySlot host(windows.slots()), device(windows.slots());
  auto add = [&](BySlot& side, EventIndex e, StringId name, int64_t self_ps) {
    const int32_t slot = windows.slot_of(e);
    if (slot < 0) return;
    OpInSteps& t = side[size_t(slot)][name];
    ++t.events;
    t.self_ps += self_ps;
  };
  const HostOpFilter host_ops(p);
  for (const auto& line : p.lines)
    if (p.planes[line.plane].kind == PlaneKind::kHostThreads)
      for_each_op_self_time(p, line, host_ops, [&](EventIndex e, int64_t self) { add(host, e, p.name_id(e), self); });
  DeviceOpFinder device_ops(p, host_ops, sa.grouping.launches.get());
  auto all_events = [](EventIndex) { return true; };
  for (const auto& plane : p.planes) {
    if (plane.kind != PlaneKind::kDevice) continue;
    const bool op_line = has_framework_op_line(p, plane);
    for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l) {
      if (!counts_device_ops(p.lines[l], op_line)) continue;
      for_each_op_self_time(p, p.lines[l], all_events, [&](EventIndex e, int64_t self) {
        add(device, e, op_line ? p.name_id(e) : device_ops.charged_op_name(l, e), self);
      });
    }
  }
  StepOpTimes out;
  for (size_t slot = 0; slot < windows.slots(); ++slot) {
    StepOpTimes::Ops& ops = out.by_step[windows.step_num(slot)];
    for (bool on_device : {false, true})
      for (const auto& [name, t] : (on_device ? device : host)[slot])
        ops[{on_device, std::string(p.strings.view(name))}] = t;
  }
  return out;
}

void StepOpTimes::add(const StepOpTimes& other) {
  for (const auto& [step_num, ops] : other.by_step)
    for (const auto& [key, t] : ops) {
      OpInSteps& into = by_step[step_num][key];
      into.events += t.events;
      into.self_ps += t.self_ps;
    }
}

bool has_tensorflow_op_names(const Profile& p) {
  std::vector<uint8_t> read(p.strings.size(), 0);  // names of one string are read once
  for (const auto& n : p.names) {
    if (n.name < read.size()) {
      if (read[n.name]) continue;
      read[n.name] = 1;
    }
    if (is_tf_op_name(p.strings.view(n.name))) return true;
  }
  return false;
}

void OpStatsTotals::add(const OpStatsTotals& other) {
  for (auto [from, into] : {std::pair{&other.host, &host}, std::pair{&other.device, &device}})
    for (const auto& [name, op] : *from) {
      auto it = into->find(name);
      if (it == into->end()) it = into->emplace(name, Op{}).first;
      it->second.occurrences += op.occurrences;
      it->second.kernel_count += op.kernel_count;
      it->second.total_ps += op.total_ps;
      it->second.self_ps += op.self_ps;
    }
  host_idle_ps += other.host_idle_ps;
  device_idle_ps += other.device_idle_ps;
  hosts += other.hosts;
}

FrameworkOpStats finish_op_stats(const OpStatsTotals& totals, const FrameworkOpStatsOptions& options) {
  FrameworkOpStats out;
  out.include_idle = options.include_idle;
  out.hosts = totals.hosts;
  out.host_idle_ps = options.include_idle ? totals.host_idle_ps : 0;
  out.device_idle_ps = options.include_idle ? totals.device_idle_ps : 0;
  auto rows_of = [](const std::map<std::string, OpStatsTotals::Op, std::less<>>& side, bool on_device) {
    std::vector<OpStatsRow> rows;
    for (const auto& [name, t] : side) {
      OpStatsRow r;
      r.on_device = on_device;
      r.name = name;
      r.occurrences = t.occurrences;
      r.kernel_count = t.kernel_count;
      r.total_ps = t.total_ps;
      r.self_ps = t.self_ps;
      rows.push_back(std::move(r));
    }
    return rows;
  };
  emit_side(rows_of(totals.device, true), true, out.device_idle_ps, &out);
  emit_side(rows_of(totals.host, false), false, out.host_idle_ps, &out);
  return out;
}

nlohmann::json to_json(const FrameworkOpStats& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : s.rows) {
    const double avg_total = r.occurrences ? ms(r.total_ps) / double(r.occurrences) : 0;
    const double avg_self = r.occurrences ? ms(r.self_ps) / double(r.occurrences) : 0;
    rows.push_back({
        {"host_or_device", r.on_device ? "Device" : "Host"},
        {"type", r.type},
        {"operation", r.name},
        {"occurrences", r.occurrences},
        {"kernel_count", r.kernel_count},
        {"total_time_ms", ms(r.total_ps)},
        {"avg_time_ms", avg_total},
        {"total_self_time_ms", ms(r.self_ps)},
        {"avg_self_time_ms", avg_self},
        {"device_self_time_pct", r.on_device ? r.self_pct : 0.0},
        {"device_cumulative_self_time_pct", r.on_device ? r.cumulative_self_pct : 0.0},
        {"host_self_time_pct", r.on_device ? 0.0 : r.self_pct},
        {"host_cumulative_self_time_pct", r.on_device ? 0.0 : r.cumulative_self_pct},
    });
  }
  auto slices = [](const std::vector<PieSlice>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& sl : v) a.push_back({{"name", sl.name}, {"self_time_ms", ms(sl.self_ps)}, {"pct", sl.pct}});
    return a;
  };
  return {
      {"ranks", to_json(s.ranks)},
      {"ops", rows},
      {"window", whole_profile_window(s.hosts)},
      {"include_idle", s.include_idle},
      {"host_self_time_ms", ms(s.host_self_ps)},
      {"device_self_time_ms", ms(s.device_self_ps)},
      {"host_idle_time_ms", ms(s.host_idle_ps)},
      {"device_idle_time_ms", ms(s.device_idle_ps)},
      {"pie", {{"host_by_op", slices(s.host_by_op)},
               {"host_by_type", slices(s.host_by_type)},
               {"device_by_op", slices(s.device_by_op)},
               {"device_by_type", slices(s.device_by_type)}}},
  };
}

std::string to_csv(const FrameworkOpStats& s) {
  std::string out;
  append_csv_row(out, {"rank", "host_or_device", "type", "operation", "occurrences", "total_time_ms",
                       "avg_time_ms", "total_self_time_ms", "avg_self_time_ms", "device_self_time_pct",
                       "device_cumulative_self_time_pct", "host_self_time_pct", "host_cumulative_self_time_pct",
                       "kernel_count"});
  const nlohmann::json j = to_json(s);
  size_t rank = 0;
  auto num = [](const nlohmann::json& v) {
    if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
    return csv_number(v.get<double>());
  };
  for (const auto& r : j["ops"]) {
    append_csv_row(out, {std::to_string(++rank), r["host_or_device"], r["type"], r["operation"], num(r["occurrences"]),
                         num(r["total_time_ms"]), num(r["avg_time_ms"]), num(r["total_self_time_ms"]),
                         num(r["avg_self_time_ms"]), num(r["device_self_time_pct"]),
                         num(r["device_cumulative_self_time_pct"]), num(r["host_self_time_pct"]),
                         num(r["host_cumulative_self_time_pct"]), num(r["kernel_count"])});
  }
  return out;
}

}  // namespace mlprof::analysis
