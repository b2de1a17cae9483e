#include "analysis/step_breakdown.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "analysis/by_name_string.h"
#include "analysis/device_input_wait.h"
#include "analysis/device_work.h"
#include "analysis/device_work_names.h"
#include "analysis/event_kinds.h"
#include "analysis/input_bound.h"
#include "analysis/lower_bound_near.h"
#include "analysis/sort_runs.h"
#include "analysis/profiler_control.h"

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;
using model::PlaneKind;
using model::Profile;

constexpr uint8_t kNoActivity = 255;

// Host activities by name, computed once per event name; the device's from device_work.h.
struct NameActivity {
  uint8_t host = uint8_t(Activity::kHostCompute);
  bool memory_record = false;  // an allocator record: no activity on either side
  bool bits16 = false;         // compute in 16 bits or fewer, by the kernel's name
  InputWaitName input;
};

NameActivity activity_of_name(const Profile& p, const DeviceWorkNames& device_names, model::NameIndex n) {
  const std::string_view name = p.strings.view(p.names[n].name);
  NameActivity a;
  if (is_memory_event_name(name)) {
    a.host = kNoActivity;
    a.memory_record = true;
    return a;
  }
  a.input = input_wait_name(name);
  if (is_iterator_name(name)) a.host = uint8_t(Activity::kHostPreprocess);
  else if (is_compile_name(name)) a.host = uint8_t(Activity::kHostCompile);
  else if (is_launch_name(name)) a.host = uint8_t(Activity::kHostPrepareLaunch);
  else if (memcpy_kind(name) == MemcpyKind::kHostToHost) a.host = uint8_t(Activity::kHostToHostCopy);
  else if (is_runtime_api_name(name)) a.host = uint8_t(Activity::kHostRuntime);
  const Precision precision = device_names.precision(p, n);
  a.bits16 = precision == Precision::kBits16 || precision == Precision::kFp8 || precision == Precision::kFp4;
  return a;
}

// The step breakdown's activity of a kind of device work. Memsets are device compute, as
// TensorFlow's and TraceLens's breakdowns count them; a DMA request is a copy of its direction.
uint8_t device_activity(DeviceWork kind, bool bits16) {
  switch (kind) {
    case DeviceWork::kCollective: return uint8_t(Activity::kDeviceCollectives);
    case DeviceWork::kCopyHostToDevice: return uint8_t(Activity::kHostToDeviceCopy);
    case DeviceWork::kCopyDeviceToHost: return uint8_t(Activity::kDeviceToHostCopy);
    case DeviceWork::kCopyDeviceToDevice:
    case DeviceWork::kCopyHostOffload:  // the device program's own copies: not input or output
    case DeviceWork::kCopyUnknown:
    case DeviceWork::kDma: return uint8_t(Activity::kDeviceToDeviceCopy);
    case DeviceWork::kCopyHostToHost: return uint8_t(Activity::kHostToHostCopy);
    case DeviceWork::kSync:
    case DeviceWork::kOther: return kNoActivity;
    case DeviceWork::kCompute:
    case DeviceWork::kMemset: break;
  }
  return uint8_t(bits16 ? Activity::kDeviceCompute16 : Activity::kDeviceCompute32);
}

// Classifies events in the context of one step.
class Classifier {
 public:
  Classifier(const Profile& p, const StepGrouping& g)
      : p_(p),
        g_(g),
        lines_(p),
        device_names_(DeviceWorkNames::or_own(g.device_work_names, p)),
        work_(p, device_names_),
        profiler_control_(find_profiler_control_calls(p)) {
    names_ = by_name_string<NameActivity>(p, [&](model::NameIndex n) { return activity_of_name(p, *device_names_, n); });
  }

  // root_line: the step root's line (kNone for the pseudo step: any thread may wait). Fastest
  // with events in index order.
  uint8_t classify(EventIndex e, uint32_t root_line) {
    if (!profiler_control_.inside.empty() && profiler_control_.inside[e]) return kNoActivity;
    const uint32_t line = lines_.line_of(e);
    const auto kind = p_.planes[p_.lines[line].plane].kind;
    const NameActivity& a = names_[p_.events.name[e]];
    if (kind == PlaneKind::kDevice) {
      if (!g_.device_work_line[line] || a.memory_record) return kNoActivity;
      DeviceWork work = work_.of(e);
      if (work == DeviceWork::kDma) work = work_.dma_direction(e);
      return device_activity(work, a.bits16);
    }
    if (kind != PlaneKind::kHostThreads) return kNoActivity;
    const StepThread where = root_line == kNone ? StepThread::kNoSteps : line == root_line ? StepThread::kYes : StepThread::kNo;
    if (waits_for_input(a.input, where))
      return uint8_t(Activity::kHostWaitInput);
    // A host event that carries a correlation id launched device work.
    if (a.host == uint8_t(Activity::kHostCompute) && p_.events.first_stat[e] != p_.events.first_stat[e + 1] &&
        p_.stat(e, model::kCorrelationId))
      return uint8_t(Activity::kHostPrepareLaunch);
    return a.host;
  }

  const ProfilerControlCalls& profiler_control() const { return profiler_control_; }

 private:
  const Profile& p_;
  const StepGrouping& g_;
  model::LineCursor lines_;
  std::shared_ptr<const DeviceWorkNames> device_names_;
  DeviceWorkClassifier work_;
  std::vector<NameActivity> names_;
  ProfilerControlCalls profiler_control_;  // the profiler's own start and stop
};

struct Interval {
  int64_t begin, end;
  uint8_t activity;
};

// Charges each instant of the step to the highest activity covering it.
void sweep(const std::vector<Interval>& intervals, StepBreakdown* step) {
  struct Point {
    int64_t t;
    int32_t delta;
    uint32_t activity;
  };
  // The points in time order. The intervals come in runs by begin (a line's events in start
  // order): a run's ends are put among its begins from a heap of those still open (as deep as
  // the line's nesting), and the few sorted runs walked side by side, rather than sorting every
  // point. Points of one instant may come in any order: the sweep reads the time between instants.
  auto later = [](const Point& a, const Point& b) { return a.t > b.t; };
  auto earlier = [](const Point& a, const Point& b) { return a.t < b.t; };
  std::vector<Point> points, open;
  points.reserve(intervals.size() * 2);
  std::vector<size_t> runs{0};
  auto close_until = [&](int64_t t) {
    while (!open.empty() && open.front().t <= t) {
      std::pop_heap(open.begin(), open.end(), later);
      points.push_back(open.back());
      open.pop_back();
    }
  };
  int64_t last_begin = std::numeric_limits<int64_t>::min();
  for (const Interval& i : intervals) {
    if (i.begin < last_begin) {  // a new run
      close_until(std::numeric_limits<int64_t>::max());
      runs.push_back(points.size());
    }
    last_begin = i.begin;
    close_until(i.begin);
    points.push_back({i.begin, +1, i.activity});
    open.push_back({i.end, -1, i.activity});
    std::push_heap(open.begin(), open.end(), later);
  }
  close_until(std::numeric_limits<int64_t>::max());
  runs.push_back(points.size());
  bool runs_in_order = runs.size() <= kFewSortedRuns + 1;
  for (size_t r = 0; runs_in_order && r + 1 < runs.size(); ++r)
    runs_in_order = std::is_sorted(points.begin() + ptrdiff_t(runs[r]), points.begin() + ptrdiff_t(runs[r + 1]), earlier);
  if (!runs_in_order) {  // many runs, or an end before its begin: sorted in place
    std::sort(points.begin(), points.end(), earlier);
    runs = {0, points.size()};
  }
  std::array<int, kNumActivities> active{};
  static_assert(kNumActivities <= 32);
  uint32_t running = 0;  // bit a: active[a] > 0, so that the highest is its top bit
  int64_t covered = 0, last_t = 0;
  bool any = false;
  visit_sorted_runs(points, runs, earlier, [&](const Point& pt) {
    // The time since the last instant goes to the highest activity running through it.
    if (any && pt.t != last_t && running != 0) {
      const int64_t dt = pt.t - last_t;
      step->activity_ps[size_t(31 - std::countl_zero(running))] += dt;
      covered += dt;
    }
    any = true;
    last_t = pt.t;
    if ((active[pt.activity] += pt.delta) > 0) running |= 1u << pt.activity;
    else running &= ~(1u << pt.activity);
  });
  step->other_ps = std::max<int64_t>(0, step->duration_ps - covered);
}

}  // namespace

Category category_of(Activity a) {
  switch (a) {
    case Activity::kHostWaitInput:
    case Activity::kHostToDeviceCopy:
    case Activity::kDeviceWaitHost: return Category::kInput;
    case Activity::kDeviceToHostCopy: return Category::kOutput;
    case Activity::kHostCompile: return Category::kCompilation;
    case Activity::kHostPrepareLaunch: return Category::kKernelLaunch;
    case Activity::kDeviceToDeviceCopy:
    case Activity::kDeviceWaitDevice: return Category::kDeviceToDevice;
    case Activity::kDeviceCollectives: return Category::kDeviceCollectives;
    case Activity::kDeviceCompute16:
    case Activity::kDeviceCompute32: return Category::kDeviceCompute;
    default: return Category::kHostCompute;  // compute, pre/postprocess, batching, runtime, host copies
  }
}

std::array<int64_t, kNumCategories> StepBreakdown::category_ps() const {
  std::array<int64_t, kNumCategories> c{};
  for (size_t a = 0; a < kNumActivities; ++a) c[size_t(category_of(Activity(a)))] += activity_ps[a];
  c[size_t(Category::kOther)] += other_ps;
  return c;
}

StepAnalysis analyze_steps(const Profile& p) { return analyze_steps(p, group_steps(p)); }

std::vector<StepBreakdown> selected_steps(const StepGrouping& g) {
  std::vector<StepBreakdown> out;
  for (uint32_t group : g.selected) {
    const Step& s = g.steps[group];
    StepBreakdown b;
    b.group = group;
    b.host = s.host;
    b.step_num = s.step_num;
    b.begin_ps = s.begin_ps;
    b.duration_ps = s.duration_ps();
    out.push_back(b);
  }
  return out;
}

StepAnalysis analyze_steps(const Profile& p, StepGrouping grouping) {
  StepAnalysis out;
  out.grouping = std::move(grouping);
  const StepGrouping& g = out.grouping;
  Classifier classifier(p, g);

  // One breakdown per selected step window; the pseudo step takes every event.
  out.steps = selected_steps(g);
  out.whole_profile = out.steps.empty();
  out.profiler_control_ps = classifier.profiler_control().control_ps;
  // A step marker spans time, not work: it is no activity, of its step or of the pseudo step.
  // An inferred step's root (a module run, a fetch) is work.
  auto is_step_marker = [&](EventIndex e) {
    const int32_t group = g.group_of[e];
    return group != kNoGroup && g.steps[size_t(group)].root == e && !g.steps[size_t(group)].root_is_work;
  };
  if (out.whole_profile) {
    int64_t begin = std::numeric_limits<int64_t>::max(), end = std::numeric_limits<int64_t>::min();
    for (EventIndex e = 0; e < p.num_events(); ++e)
      if (!is_step_marker(e) && classifier.classify(e, kNone) != kNoActivity)
        begin = std::min(begin, p.start_ps(e)), end = std::max(end, p.end_ps(e));
    // Frames that enclose the profiler's start and stop calls span them: the program's time is
    // between the two.
    begin = std::max(begin, classifier.profiler_control().program_begin_ps);
    end = std::min(end, classifier.profiler_control().program_end_ps);
    if (begin >= end) return out;
    StepBreakdown b;
    b.group = UINT32_MAX;
    b.begin_ps = begin;
    b.duration_ps = end - begin;
    out.steps.push_back(b);
  }

  // Each event's activity, once (1 byte an event); parents come first, so an event can ask
  // its parent's. Inside a parent of the same step doing the same activity, an event changes
  // nothing and is left out. An event of any step counts in the selected step windows of its
  // host that it overlaps (windows never overlap, so no instant counts twice: work of step N+1
  // that starts while step N's device work runs is charged to step N's window). The events are
  // bucketed by window (a counting sort) and swept.
  const size_t n = p.num_events();
  std::vector<uint8_t> activity(n, kNoActivity);
  std::vector<uint32_t> count(out.steps.size() + 1, 0);
  // Per host, its selected windows in time order, as slots of out.steps.
  std::vector<std::vector<uint32_t>> slots_of_host(p.hosts.size());
  if (!out.whole_profile)
    for (uint32_t i = 0; i < out.steps.size(); ++i) slots_of_host[out.steps[i].host].push_back(i);
  // Calls f(slot) for each window event e overlaps. The search starts from the last one's
  // window: events come by line, in start order.
  const std::vector<uint32_t>* last_slots = nullptr;
  size_t last_slot = 0;
  auto for_each_slot = [&](EventIndex e, auto&& f) {
    if (out.whole_profile) return f(uint32_t(0));
    const int32_t group = g.group_of[e];
    if (group == kNoGroup) return;
    const auto& slots = slots_of_host[g.steps[size_t(group)].host];
    if (&slots != last_slots) last_slots = &slots, last_slot = 0;
    const int64_t begin = p.start_ps(e), end = p.end_ps(e);
    // The first window that ends after the event begins.
    auto it = lower_bound_near(slots.begin(), slots.end(), slots.begin() + ptrdiff_t(last_slot), begin,
                               [&](uint32_t slot, int64_t t) {
                                 return out.steps[slot].begin_ps + out.steps[slot].duration_ps <= t;
                               });
    last_slot = size_t(it - slots.begin());
    for (; it != slots.end() && out.steps[*it].begin_ps < end; ++it) f(*it);
  };
  auto kept = [&](EventIndex e) {
    if (activity[e] == kNoActivity) return false;
    const EventIndex parent = p.events.parent[e];
    if (parent == kNone || activity[parent] != activity[e] || g.group_of[parent] != g.group_of[e]) return true;
    return !out.whole_profile && parent == g.steps[size_t(g.group_of[e])].root;
  };
  // Each step's root line, looked up once rather than per event.
  std::vector<uint32_t> root_line(g.steps.size(), kNone);
  for (size_t i = 0; i < g.steps.size(); ++i)
    if (g.steps[i].root != kNone) root_line[i] = p.line_index(g.steps[i].root);
  std::vector<bool> is_kept(n, false);  // kept(e), once: the bucketing asks again
  for (EventIndex e = 0; e < n; ++e) {
    if (!out.whole_profile && g.group_of[e] == kNoGroup) continue;
    if (is_step_marker(e)) continue;  // a marker spans a step; it is not an activity
    activity[e] = classifier.classify(e, out.whole_profile ? kNone : root_line[size_t(g.group_of[e])]);
    if (!kept(e)) continue;
    is_kept[e] = true;
    for_each_slot(e, [&](uint32_t slot) { ++count[size_t(slot) + 1]; });
  }
  for (size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
  std::vector<EventIndex> by_step(count.back());
  {
    std::vector<uint32_t> next(count.begin(), count.end() - 1);
    for (EventIndex e = 0; e < n; ++e)
      if (is_kept[e]) for_each_slot(e, [&](uint32_t slot) { by_step[next[slot]++] = e; });
  }
  // Devices idle until the host sends input (device_input_wait.h): steps only, not the pseudo step.
  std::optional<DeviceInputWait> input_wait;
  if (!out.whole_profile && g.has_device_work) input_wait.emplace(p, g);
  std::vector<Interval> intervals;
  std::vector<TimeInterval> waits;
  for (size_t i = 0; i < out.steps.size(); ++i) {
    StepBreakdown& b = out.steps[i];
    intervals.clear();
    for (uint32_t k = count[i]; k < count[i + 1]; ++k) {
      const EventIndex e = by_step[k];
      const int64_t begin = std::max(p.start_ps(e), b.begin_ps);
      const int64_t end = std::min(p.end_ps(e), b.begin_ps + b.duration_ps);
      if (begin < end) intervals.push_back({begin, end, activity[e]});
    }
    if (input_wait) {
      waits.clear();
      input_wait->add_waits(b.group, b.begin_ps, b.begin_ps + b.duration_ps, &waits);
      for (const auto& [begin, end] : waits) intervals.push_back({begin, end, uint8_t(Activity::kDeviceWaitHost)});
    }
    sweep(intervals, &b);
    for (const Interval& in : intervals)
      if (category_of(Activity(in.activity)) == Category::kInput) out.input_wait.emplace_back(in.begin, in.end);
  }
  out.input_wait = merged(std::move(out.input_wait));
  return out;
}

SeriesStats series_stats(const std::vector<double>& values) {
  SeriesStats s;
  if (values.empty()) return s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / double(values.size());
  double sq = 0;
  for (double v : values) sq += (v - s.avg) * (v - s.avg);
  s.stddev = std::sqrt(sq / double(values.size()));
  return s;
}

}  // namespace mlprof::analysis
