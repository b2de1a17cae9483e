#include "analysis/critical_path/critical_path.h"

#include <fmt/format.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <thread>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "analysis/category_labels.h"
#include "analysis/critical_path/bottleneck.h"
#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/event_bits.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/critical_path/step_windows.h"
#include "analysis/csv.h"
#include "analysis/hlo_ops.h"
#include "analysis/tool_registry.h"
#include "format/utf8_text.h"

namespace mlprof::analysis {
namespace {

constexpr double kPsPerMs = 1e9;
// Above this share of the path, time no event covers makes predictions doubtful.
constexpr double kUntracedNotePct = 10;
// A graph that gives back the measured steps within this share explains them.
constexpr double kReplayTolerancePct = 10;

bool is_device_kind(PathKind k) {
  return k == PathKind::kDeviceCompute || k == PathKind::kCollectives || k == PathKind::kCopies;
}

// The order of the top ops and kernels: most time first, then by name.
bool more_time_first(double a_ms, std::string_view a_name, double b_ms, std::string_view b_name) {
  return a_ms != b_ms ? a_ms > b_ms : a_name < b_name;
}

std::vector<PathTime> largest(const std::map<std::string, double>& by_name, size_t n, double divide) {
  std::vector<PathTime> out;
  for (const auto& [name, ms] : by_name) out.push_back({name, ms / divide, ""});
  std::sort(out.begin(), out.end(),
            [](const PathTime& a, const PathTime& b) { return more_time_first(a.ms, a.name, b.ms, b.name); });
  if (out.size() > n) out.resize(n);
  return out;
}

// Time by name, summed by the name's string id (interned: one id a string): a step's, then
// added to its window's, and turned into strings once a window, not once a step.
class NameTotals {
 public:
  void add(model::StringId name, double ms) {
    if (name >= ms_.size()) ms_.resize(size_t(name) + 1, -1);
    if (ms_[name] < 0) {
      ms_[name] = 0;
      touched_.push_back(name);
    }
    ms_[name] += ms;
  }
  // The n largest, in largest()'s order.
  std::vector<PathTime> largest(const model::Profile& p, size_t n) const {
    std::vector<std::pair<std::string_view, double>> all;
    all.reserve(touched_.size());
    for (model::StringId name : touched_) all.emplace_back(p.strings.view(name), ms_[name]);
    n = std::min(n, all.size());
    std::partial_sort(all.begin(), all.begin() + long(n), all.end(), [](const auto& a, const auto& b) {
      return more_time_first(a.second, a.first, b.second, b.first);
    });
    std::vector<PathTime> out;
    for (size_t i = 0; i < n; ++i) out.push_back({std::string(all[i].first), all[i].second, ""});
    return out;
  }
  // Adds each total to `into`, emptied for the next step.
  void move_into(NameTotals& into) {
    for (model::StringId name : touched_) {
      into.add(name, ms_[name]);
      ms_[name] = -1;
    }
    touched_.clear();
  }
  // The totals by name.
  std::map<std::string, double> by_text(const model::Profile& p) const {
    std::map<std::string, double> out;
    for (model::StringId name : touched_) out[std::string(p.strings.view(name))] += ms_[name];
    return out;
  }

 private:
  std::vector<double> ms_;  // per string id; -1: not on this path
  std::vector<model::StringId> touched_;
};

// An event lasting this share of its step or more spans the step (the step's marker, an
// annotation around the whole iteration): its time on the path is the gaps between the ops
// inside it, and removing it would remove the step, so it is neither a top op nor a what-if.
constexpr double kSpansStepShare = 0.9;

// The names of a path's events and of the events around them, and of the calls that launched
// its device work: what an op what-if must name to reach the path (what_if.h). An event walked
// already (`walked`) had its enclosing events' names marked too.
struct PathNames {
  std::vector<uint8_t> names;  // per NameIndex
  EventBits walked;
  model::EventIndex last = model::kNone;  // walked just before: a host event owns its own edges
  explicit PathNames(const model::Profile& p) : names(p.names.size(), 0), walked(p.events.size()) {}
  void mark(const model::Profile& p, const PathEdge& edge) {
    mark(p, edge.event);
    mark(p, edge.owner);  // the same event but for device work: a return, at once
  }
  void mark(const model::Profile& p, model::EventIndex e) {
    if (e == last) return;
    last = e;
    for (; e != model::kNone && !walked.test(e); e = p.events.parent[e] < e ? p.events.parent[e] : model::kNone) {
      walked.set(e);
      names[p.events.name[e]] = 1;
    }
  }
};

// The path's time by kind; its ops' and kernels' by name added to `ops` and `kernels`, and
// its events' names to `names` (if any).
std::array<double, kNumPathKinds> read_path(const model::Profile& p, const DependencyGraph& g,
                                            const std::vector<PathPiece>& path, const GraphStep& step,
                                            NameTotals& ops, NameTotals& kernels, PathNames* names) {
  const uint32_t host = step.host;
  const double spanning_ps = kSpansStepShare * double(step.end_ps - step.begin_ps);
  std::array<double, kNumPathKinds> kind_ms{};
  for (const PathPiece& piece : path) {
    const double ms = double(piece.ps) / kPsPerMs;
    if (piece.edge == UINT32_MAX) {
      kind_ms[size_t(PathKind::kIdle)] += ms;
      continue;
    }
    const PathEdge& e = g.edges[piece.edge];
    if (names) names->mark(p, e);
    PathKind kind = e.kind == PathKind::kWaiting ? PathKind::kIdle : e.kind;
    if (e.host != host) kind = PathKind::kWaitingForRank;  // another rank's work held this one
    kind_ms[size_t(kind)] += ms;
    if (e.event == model::kNone || ms <= 0) continue;
    const bool on_device = is_device_kind(e.kind) && p.plane_of(e.event).kind == model::PlaneKind::kDevice;
    if (!on_device && double(p.duration_ps(e.event)) >= spanning_ps) continue;
    (on_device ? kernels : ops).add(p.names[p.events.name[e.event]].name, ms);
  }
  return kind_ms;
}

// The asked changes to predict: with `skip_unmatched`, a target that names nothing in the steps
// is left out instead of refused (by make).
std::vector<WhatIfChange> changes_to_make(WhatIfPredictor& predict, const std::vector<WhatIfChange>& asked,
                                          bool skip_unmatched) {
  if (!skip_unmatched) return asked;
  std::vector<WhatIfChange> changes;
  predict.match(asked);
  for (const WhatIfChange& change : asked)
    if (predict.matches(change.target)) changes.push_back(change);
  return changes;
}

// The predictions of `changes` (made already, or made here) into c.what_if.
void read_predictions(WhatIfPredictor& predict, const std::vector<WhatIfChange>& changes, CriticalPath& c) {
  predict.make(changes);
  for (const WhatIfChange& change : changes) {
    WhatIfPrediction w{change.target, change.scale, predict.step_ms(change.target, change.scale)};
    if (c.path_ms - w.step_ms < kMinSavingShare * c.path_ms) w.reaches_steps = predict.reaches_steps(change.target);
    c.what_if.push_back(std::move(w));
  }
}

// The names of the steps' own markers (ProfilerStep#551): they span their steps, so they are
// no what-if target and no close name to offer (read_path).
std::set<std::string, std::less<>> step_root_names(const model::Profile& p, const StepAnalysis& steps) {
  std::set<std::string, std::less<>> out;
  for (const Step& step : steps.grouping.steps)
    if (step.root != model::kNone && !step.root_is_work) out.emplace(p.name(step.root));
  return out;
}

// XLA ops by their HLO op name, as the overview and the trace viewer name them, the
// instruction's text kept as the long name (after the predictions, which match whole names).
void name_hlo_ops(CriticalPath& c) {
  auto shorten = [](std::vector<PathTime>& times) {
    for (PathTime& t : times)
      if (t.name.starts_with('%')) {
        t.long_name = std::move(t.name);
        t.name = std::string(hlo_op_name_of_text(t.long_name));
      }
  };
  shorten(c.top_ops);
  shorten(c.top_kernels);
  for (CriticalPathStep& s : c.steps) shorten(s.top_ops), shorten(s.top_kernels);
}

// Every kind on the path and the largest ops and kernels on it, removed and halved.
std::vector<WhatIfChange> default_changes(const CriticalPath& c) {
  std::vector<WhatIfChange> out;
  for (size_t k = 0; k < kNumPathKinds; ++k)
    if (c.kind_ms[k] > 0 && PathKind(k) != PathKind::kWaitingForRank)
      for (double scale : {0.0, 0.5}) out.push_back({std::string(kPathKindKeys[k]), scale});
  std::vector<PathTime> named = c.top_ops;
  named.insert(named.end(), c.top_kernels.begin(), c.top_kernels.end());
  std::sort(named.begin(), named.end(), [](const PathTime& a, const PathTime& b) { return a.ms > b.ms; });
  // A kernel also listed as an op (TensorFlow names its GPU ops by their kernels) is asked once.
  std::vector<std::string> asked;
  for (size_t i = 0; i < named.size() && asked.size() < kTopOverall; ++i) {
    if (std::find(asked.begin(), asked.end(), named[i].name) != asked.end()) continue;
    asked.push_back(named[i].name);
    for (double scale : {0.0, 0.5}) out.push_back({named[i].name, scale});
  }
  return out;
}

std::string prediction_note(const CriticalPath& c) {
  std::vector<std::string> notes;
  const double untraced_pct = c.path_ms > 0 ? 100 * c.kind_ms[size_t(PathKind::kIdle)] / c.path_ms : 0;
  if (untraced_pct >= kUntracedNotePct)
    notes.push_back(fmt::format(
        "{:.0f}% of the critical path is time no traced event covers: what happens there (an untraced thread, "
        "a process not profiled) is kept as measured, so a change that would shorten it is not predicted",
        untraced_pct));
  if (c.step_ms > 0 && std::abs(c.path_ms - c.step_ms) > c.step_ms * kReplayTolerancePct / 100)
    notes.push_back(fmt::format("the dependencies found give {:.3f} ms a step where {:.3f} ms was measured: the "
                                "trace does not show everything the steps waited for",
                                c.path_ms, c.step_ms));
  return fmt::format("{}", fmt::join(notes, "; "));
}

}  // namespace

PathKind CriticalPath::largest_kind() const {
  return PathKind(std::max_element(kind_ms.begin(), kind_ms.end()) - kind_ms.begin());
}

PathKind CriticalPath::bottleneck() const {
  PathKind best = largest_kind();
  double best_saving = path_ms * kMinSavingShare;
  for (size_t k = 0; k < kNumPathKinds; ++k) {
    // Waiting for a rank is another rank's work; untraced gaps are what the trace cannot show:
    // neither is a change to recommend while a kind of traced work saves time.
    if (PathKind(k) == PathKind::kWaitingForRank || PathKind(k) == PathKind::kIdle) continue;
    const double saving = saving_if_removed_ms(PathKind(k));
    if (saving > best_saving) {
      best = PathKind(k);
      best_saving = saving;
    }
  }
  return best;
}

namespace {

// The windows' graphs, freed, stay in the allocator's arenas (a thread's own, where the
// overview reads the path beside its other work) and count in the process's memory until
// given back: the tools after would add to them.
void give_back_freed_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// What the paths of one window's steps add to the means, and the predictions made in its graph
// (step_windows.h).
struct WindowPaths {
  std::vector<std::pair<uint32_t, CriticalPathStep>> steps;  // by index into the spans
  double step_ms = 0, path_ms = 0;
  std::array<double, kNumPathKinds> kind_ms{};
  std::map<std::string, double> ops, kernels;
  size_t cut_edges = 0, consumer_links = 0, sync_links = 0, launch_links = 0;
  // Its reported steps' lengths summed, in ps: as replayed unchanged, and per change made.
  double measured_total_ps = 0;
  std::map<std::pair<std::string, double>, double> total_ps;
  std::map<std::string, bool, std::less<>> reaches;  // per target: leads to a step's end
  std::array<bool, kNumPathKinds> kind_in_graph{};   // some edge of its graph is of the kind
  // Sorted: the names of the events on its paths and around them (an op what-if that reaches
  // none of them leaves its steps as they were).
  std::vector<model::NameIndex> path_names;
};

// A window's graph and the predictor over it (which holds the graph by reference).
struct WindowGraph {
  std::unique_ptr<DependencyGraph> g;
  std::unique_ptr<WhatIfPredictor> predict;
};

// What every window of one computation reads.
struct PathInputs {
  const model::Profile& p;
  const StepAnalysis& steps;
  const std::vector<StepSpan>& spans;
  const GraphInputs& graph;
  const std::set<std::string, std::less<>>& root_names;
  PathDetail detail;
  const NamesByText* names;  // null for one graph
};

WindowGraph build_window(const PathInputs& in, const StepWindow& w) {
  WindowGraph out;
  out.g = std::make_unique<DependencyGraph>(
      w.whole ? build_dependency_graph(in.p, in.steps, in.spans, 0, in.graph, EventSelection::whole(in.p))
              : build_dependency_graph(in.p, in.steps, window_spans(in.spans, w), w.context.size(), in.graph,
                                       window_events(in.p, w), {w.counted_begin_ps, w.counted_end_ps}));
  out.predict = std::make_unique<WhatIfPredictor>(in.p, *out.g, in.root_names);
  out.predict->set_names(in.names);
  return out;
}

// Reads the paths of the window's reported steps.
void read_paths(const PathInputs& in, const StepWindow& w, WindowGraph& wg, WindowPaths& out) {
  const model::Profile& p = in.p;
  const DependencyGraph& g = *wg.g;
  out.cut_edges = g.cut_edges;
  out.consumer_links = g.consumer_links;
  out.sync_links = g.sync_links;
  out.launch_links = g.launch_links;
  if (g.steps.empty()) return;
  Replay measured = replay(g, nullptr, 1, true);
  NameTotals step_ops, step_kernels, window_ops, window_kernels;
  std::optional<PathNames> on_path;  // for a window among several
  if (!w.whole) on_path.emplace(p);
  size_t own = 0;
  std::vector<PathPiece> pieces;  // a step's, its room kept for the next
  for (const GraphStep& gs : g.steps) {
    if (!gs.reported) continue;
    const uint32_t index = w.own[own++];
    critical_path(g, measured, gs, pieces);
    const std::array<double, kNumPathKinds> kind_ms =
        read_path(p, g, pieces, gs, step_ops, step_kernels, on_path ? &*on_path : nullptr);
    CriticalPathStep s;
    if (in.detail == PathDetail::kSegments)
      s.path = path_segments(p, g, measured, pieces, gs, segments_cap(index, in.spans.size()));
    s.host = std::string(p.strings.view(p.hosts[gs.host].name));
    s.step_num = gs.step_num;
    s.step_ms = double(gs.end_ps - gs.begin_ps) / kPsPerMs;
    s.path_ms = double(replayed_duration_ps(g, measured, gs)) / kPsPerMs;
    s.kind_ms = kind_ms;
    s.top_ops = step_ops.largest(p, kTopPerStep);
    s.top_kernels = step_kernels.largest(p, kTopPerStep);
    step_ops.move_into(window_ops);
    step_kernels.move_into(window_kernels);
    out.step_ms += s.step_ms;
    out.path_ms += s.path_ms;
    for (size_t k = 0; k < kNumPathKinds; ++k) out.kind_ms[k] += s.kind_ms[k];
    out.steps.emplace_back(index, std::move(s));
  }
  out.ops = window_ops.by_text(p);
  out.kernels = window_kernels.by_text(p);
  if (on_path)
    for (model::NameIndex n = 0; n < on_path->names.size(); ++n)
      if (on_path->names[n]) out.path_names.push_back(n);
  wg.predict->set_measured(std::move(measured));  // the replays start from it
}

// Whether the kind's removal is predicted, given the time of each kind on the path.
bool predicts_removal(size_t k, const std::array<double, kNumPathKinds>& kind_ms, PathDetail detail) {
  // The bottleneck is a kind of traced work (CriticalPath::bottleneck): the summary predicts
  // no removal of the untraced gaps unless they are the bottleneck.
  return PathKind(k) != PathKind::kWaitingForRank && kind_ms[k] > 0 &&
         (detail == PathDetail::kSegments || PathKind(k) != PathKind::kIdle);
}

// Makes `changes` in the window's graph, recording their totals and whether they reach a step
// (a target its graph does not hold leaves its steps as they were).
void predict_in_window(WindowGraph& wg, const std::vector<WhatIfChange>& changes, WindowPaths& out) {
  WhatIfPredictor& predict = *wg.predict;
  predict.match(changes);
  std::vector<WhatIfChange> held;
  for (const WhatIfChange& change : changes)
    if (predict.matches(change.target)) held.push_back(change);
  predict.make(held);
  out.measured_total_ps = predict.measured_total_ps();
  for (const WhatIfChange& change : changes) {
    const bool matched = predict.matches(change.target);
    out.total_ps[{change.target, change.scale}] =
        matched ? predict.total_step_ps(change.target, change.scale) : out.measured_total_ps;
    out.reaches.try_emplace(change.target, matched && predict.reaches_steps(change.target));
  }
}

// One window of several: the changes asked most, made before the means are known (the graph
// is gone by then): each kind on its paths removed and halved (the bottleneck, the
// recommendations and the default what-ifs ask them) and, for the defaults, its own largest
// ops and kernels. The summary's bottleneck asks each kind removed and changed at its
// recommended scale only; its callers' other changes come with theirs (`asked`, when known),
// made together with these (the replays that run on to the end go in pairs).
void predict_ahead(const PathInputs& in, WindowGraph& wg, WindowPaths& out, bool defaults,
                   const std::vector<WhatIfChange>* asked) {
  std::vector<WhatIfChange> others;  // the ops' and the caller's
  if (defaults) {
    CriticalPath own;
    own.top_ops = largest(out.ops, kTopOverall, 1);
    own.top_kernels = largest(out.kernels, kTopOverall, 1);
    others = default_changes(own);
  }
  if (asked) others.insert(others.end(), asked->begin(), asked->end());
  // The kinds' edges and the others' found in one pass over the edges (what_if.h); the kinds'
  // tell which kinds the graph holds.
  others.push_back({std::string(kPathKindKeys[0]), 0});
  wg.predict->match(others);
  others.pop_back();
  for (size_t k = 0; k < kNumPathKinds; ++k)
    out.kind_in_graph[k] = wg.predict->num_edges(std::string(kPathKindKeys[k])) > 0;
  // Every kind its graph holds, on its paths or not: a change before a step (the gap before a
  // device's first op) moves the step too.
  std::array<double, kNumPathKinds> held{};
  for (size_t k = 0; k < kNumPathKinds; ++k) held[k] = out.kind_in_graph[k] ? 1 : 0;
  std::vector<WhatIfChange> changes;
  for (size_t k = 0; k < kNumPathKinds; ++k)
    if (predicts_removal(k, held, in.detail))
      for (double scale : {0.0, 0.5})
        if (in.detail != PathDetail::kSummary || scale == 0 || scale == recommended_scale(PathKind(k)))
          changes.push_back({std::string(kPathKindKeys[k]), scale});
  changes.insert(changes.end(), others.begin(), others.end());
  predict_in_window(wg, changes, out);
}

// The window's total after a change, where it is known without its graph: made already, or a
// change that reaches nothing on its paths (a kind its graph does not hold, an op around none
// of their events).
// `names_of` gives the names an op target matches (target_names, what_if.h).
template <typename NamesOf>
std::optional<double> known_total(const WindowPaths& out, NamesOf&& names_of, const std::string& target, double scale) {
  if (auto it = out.total_ps.find({target, scale}); it != out.total_ps.end()) return it->second;
  if (const auto kind = path_kind_of_target(target)) {
    if (auto it = out.total_ps.find({std::string(kPathKindKeys[size_t(*kind)]), scale}); it != out.total_ps.end())
      return it->second;
    if (!out.kind_in_graph[size_t(*kind)]) return out.measured_total_ps;  // nothing to change
    return std::nullopt;
  }
  for (model::NameIndex n : names_of(target))
    if (std::binary_search(out.path_names.begin(), out.path_names.end(), n)) return std::nullopt;
  return out.measured_total_ps;
}

}  // namespace

CriticalPath compute_critical_path_of_spans(const model::Profile& p, const StepAnalysis& steps,
                                            const std::vector<StepSpan>& spans, const WhatIfSource& what_if_source,
                                            WhatIfDefaults defaults, PathDetail detail, size_t window_events) {
  CriticalPath c;
  for (const model::Plane& plane : p.planes) c.on_tpu |= p.strings.view(plane.name).starts_with("/device:TPU:");
  if (!p.hosts.empty()) c.gpu_vendor = host_gpu_vendor(p, 0);
  const std::vector<StepWindow> windows = step_windows(p, steps, spans, window_events);
  const bool whole = windows.size() == 1 && windows.front().whole;
  const GraphInputs graph = graph_inputs(p, steps, whole);
  const std::set<std::string, std::less<>> root_names = step_root_names(p, steps);
  std::optional<NamesByText> names;  // among several windows, found once for their predictors
  if (!whole) names.emplace(p);
  const PathInputs in{p, steps, spans, graph, root_names, detail, names ? &*names : nullptr};

  // Pass 1: each window's graph, its steps' paths and, among several, the changes asked most
  // and those the caller asks (the overview's wait for its op totals, fetched beside the
  // windows). A window waits for the asked changes rather than be built again for them in pass
  // 2: the totals come first on another thread, while a graph costs tens of milliseconds.
  std::vector<WindowPaths> paths(windows.size());
  WindowGraph kept;  // the whole profile's graph, for the predictions
  std::future<std::vector<WhatIfChange>> early;
  std::optional<std::vector<WhatIfChange>> asked_early;
  if (!whole) early = std::async(std::launch::async, what_if_source);
  if (whole) {
    kept = build_window(in, windows.front());
    read_paths(in, windows.front(), kept, paths.front());
  } else {
    // Windows are independent: two at a time, one a core (two graphs alive at most), each
    // replaying on its own core.
    const size_t workers = std::min<size_t>(windows.size(), std::thread::hardware_concurrency() >= 2 ? 2 : 1);
    std::atomic<size_t> next{0};
    std::mutex asked_mutex;
    auto read_windows = [&] {
      for (size_t i; (i = next++) < windows.size();) {
        WindowGraph wg = build_window(in, windows[i]);
        if (workers > 1) wg.predict->set_max_threads(1);
        read_paths(in, windows[i], wg, paths[i]);
        if (wg.g->steps.empty()) continue;
        const std::vector<WhatIfChange>* asked = nullptr;  // set once, then only read
        {
          std::lock_guard<std::mutex> lock(asked_mutex);
          if (!asked_early) asked_early = early.get();
          asked = &*asked_early;
        }
        predict_ahead(in, wg, paths[i], defaults == WhatIfDefaults::kAdd, asked);
      }
    };
    std::vector<std::future<void>> others;
    for (size_t t = 1; t < workers; ++t) others.push_back(std::async(std::launch::async, read_windows));
    read_windows();
    for (std::future<void>& other : others) other.get();
  }
  size_t cut_edges = 0;
  for (const WindowPaths& w : paths) {
    cut_edges += w.cut_edges;
    c.consumer_links += w.consumer_links;
    c.sync_links += w.sync_links;
    c.launch_links += w.launch_links;
  }
  if (cut_edges > 0)
    c.warnings.push_back(
        fmt::format("{} dependencies went back in time (clock skew or broken flows) and were cut", cut_edges));
  if (spans.empty()) {
    if (const std::vector<WhatIfChange> what_if = what_if_source(); !what_if.empty())
      read_predictions(*kept.predict, what_if, c);
    return c;
  }
  // The means, over the steps in their order.
  std::map<std::string, double> ops, kernels;
  c.steps.resize(spans.size());
  for (WindowPaths& w : paths) {
    for (auto& [index, step] : w.steps) c.steps[index] = std::move(step);
    w.steps = {};
    for (const auto& [name, ms] : w.ops) ops[name] += ms;
    for (const auto& [name, ms] : w.kernels) kernels[name] += ms;
    c.step_ms += w.step_ms;
    c.path_ms += w.path_ms;
    for (size_t k = 0; k < kNumPathKinds; ++k) c.kind_ms[k] += w.kind_ms[k];
  }
  const double n = double(c.steps.size());
  c.step_ms /= n;
  c.path_ms /= n;
  for (double& ms : c.kind_ms) ms /= n;
  c.top_ops = largest(ops, kTopOverall, n);
  c.top_kernels = largest(kernels, kTopOverall, n);
  c.prediction_note = prediction_note(c);

  std::vector<WhatIfChange> removals;  // for the bottleneck
  for (size_t k = 0; k < kNumPathKinds; ++k)
    if (predicts_removal(k, c.kind_ms, detail)) removals.push_back({std::string(kPathKindKeys[k]), 0});
  if (whole) {
    WhatIfPredictor& predict = *kept.predict;
    const std::vector<WhatIfChange> what_if = what_if_source();
    std::vector<WhatIfChange> asked;
    if (!what_if.empty() || defaults == WhatIfDefaults::kAdd) asked = what_if.empty() ? default_changes(c) : what_if;
    // The removals' edges and the asked targets' found in one pass over the edges (what_if.h).
    std::vector<WhatIfChange> to_match = removals;
    to_match.insert(to_match.end(), asked.begin(), asked.end());
    predict.match(to_match);
    const std::vector<WhatIfChange> changes =
        changes_to_make(predict, asked, defaults == WhatIfDefaults::kSkipUnmatched);
    predict.make(removals);
    for (size_t k = 0; k < kNumPathKinds; ++k)
      c.removed_step_ms[k] = predicts_removal(k, c.kind_ms, detail) ? predict.step_ms(std::string(kPathKindKeys[k]), 0)
                                                                    : c.path_ms;
    const PathKind b = c.bottleneck();
    const std::string key(path_kind_key(b));
    // The bottleneck's change made with the asked ones (the replays that run on to the end go in pairs).
    std::vector<WhatIfChange> to_make = changes;
    if (b != PathKind::kWaitingForRank) to_make.push_back({key, recommended_scale(b)});
    predict.make(to_make);
    read_predictions(predict, changes, c);
    c.bottleneck_change = {key, recommended_scale(b),
                           b == PathKind::kWaitingForRank ? c.path_ms : predict.step_ms(key, recommended_scale(b))};
    name_hlo_ops(c);
    return c;
  }

  // Pass 2, among several windows: the predictions, summed over the windows; a window whose
  // total for a change is not known yet builds its graph again.
  const std::vector<uint8_t> in_graphs = graph_event_names(p, steps, graph);
  std::map<std::string, std::vector<model::NameIndex>, std::less<>> names_found;  // per op target
  auto names_of = [&](const std::string& target) -> const std::vector<model::NameIndex>& {
    auto it = names_found.find(target);
    if (it == names_found.end()) it = names_found.emplace(target, target_names(p, in_graphs, target)).first;
    return it->second;
  };
  auto totals = [&](const std::vector<WhatIfChange>& changes, const std::vector<std::string>& reach) {
    std::map<std::pair<std::string, double>, double> sum;
    for (size_t i = 0; i < windows.size(); ++i) {
      std::vector<WhatIfChange> missing;
      for (const WhatIfChange& change : changes)
        if (!known_total(paths[i], names_of, change.target, change.scale)) missing.push_back(change);
      bool reach_missing = false;
      for (const std::string& target : reach) reach_missing |= !paths[i].reaches.count(target);
      if (!missing.empty() || reach_missing) {
        WindowGraph wg = build_window(in, windows[i]);
        if (wg.g->steps.empty()) continue;
        std::vector<WhatIfChange> asked = missing;
        for (const std::string& target : reach)
          if (!paths[i].reaches.count(target)) asked.push_back({target, 1});
        predict_in_window(wg, asked, paths[i]);
      }
      std::set<std::pair<std::string, double>> added;  // a change asked twice counts once
      for (const WhatIfChange& change : changes)
        if (added.insert({change.target, change.scale}).second)
          sum[{change.target, change.scale}] += *known_total(paths[i], names_of, change.target, change.scale);
    }
    return sum;
  };
  auto mean_ms = [&](double total_ps) { return total_ps / n / 1e9; };
  {
    const auto removed = totals(removals, {});
    for (size_t k = 0; k < kNumPathKinds; ++k)
      c.removed_step_ms[k] = predicts_removal(k, c.kind_ms, detail)
                                 ? mean_ms(removed.at({std::string(kPathKindKeys[k]), 0}))
                                 : c.path_ms;
  }
  const PathKind b = c.bottleneck();
  const std::string key(path_kind_key(b));
  std::vector<WhatIfChange> asked;
  if (!asked_early) asked_early = early.get();
  if (const std::vector<WhatIfChange>& what_if = *asked_early; !what_if.empty() || defaults == WhatIfDefaults::kAdd)
    asked = what_if.empty() ? default_changes(c) : what_if;
  std::vector<WhatIfChange> changes;  // those that name something (the others refused, or left out)
  for (const WhatIfChange& change : asked) {
    if (path_kind_of_target(change.target) || !names_of(change.target).empty())
      changes.push_back(change);
    else if (defaults != WhatIfDefaults::kSkipUnmatched)
      throw unmatched_target(close_targets(p, in_graphs, change.target), root_names, change.target);
  }
  std::vector<WhatIfChange> wanted = changes;
  if (b != PathKind::kWaitingForRank) wanted.push_back({key, recommended_scale(b)});
  auto sum = totals(wanted, {});
  // Whether a change that gains nothing reaches the steps at all: asked where no window said.
  std::vector<std::string> reach;
  for (const WhatIfChange& change : changes) {
    if (c.path_ms - mean_ms(sum.at({change.target, change.scale})) >= kMinSavingShare * c.path_ms) continue;
    bool any = false;
    for (const WindowPaths& w : paths)
      if (auto it = w.reaches.find(change.target); it != w.reaches.end()) any |= it->second;
    if (!any) reach.push_back(change.target);
  }
  if (!reach.empty()) totals({}, reach);
  for (const WhatIfChange& change : changes) {
    WhatIfPrediction w{change.target, change.scale, mean_ms(sum.at({change.target, change.scale}))};
    if (c.path_ms - w.step_ms < kMinSavingShare * c.path_ms) {
      w.reaches_steps = false;
      for (const WindowPaths& wp : paths)
        if (auto it = wp.reaches.find(change.target); it != wp.reaches.end()) w.reaches_steps |= it->second;
    }
    c.what_if.push_back(std::move(w));
  }
  c.bottleneck_change = {key, recommended_scale(b),
                         b == PathKind::kWaitingForRank ? c.path_ms : mean_ms(sum.at({key, recommended_scale(b)}))};
  name_hlo_ops(c);
  give_back_freed_memory();
  return c;
}

CriticalPath compute_critical_path(const model::Profile& p, const StepAnalysis& steps,
                                   const std::vector<WhatIfChange>& what_if, WhatIfDefaults defaults,
                                   size_t window_events) {
  return compute_critical_path_of_spans(p, steps, step_spans(steps), [&what_if] { return what_if; }, defaults,
                                        PathDetail::kSegments, window_events);
}

CriticalPath compute_critical_path_of_spans(const model::Profile& p, const StepAnalysis& steps,
                                            const std::vector<StepSpan>& spans, const std::vector<WhatIfChange>& what_if,
                                            WhatIfDefaults defaults, PathDetail detail) {
  return compute_critical_path_of_spans(p, steps, spans, [&what_if] { return what_if; }, defaults, detail);
}

CriticalPath compute_critical_path_of_annotation(const model::Profile& p, const StepAnalysis& steps,
                                                 std::string_view annotation,
                                                 const std::vector<WhatIfChange>& what_if) {
  // An annotation's spans may overlap and end with work launched inside them: one graph.
  return compute_critical_path_of_spans(p, steps, annotation_spans(p, annotation), [&what_if] { return what_if; },
                                        WhatIfDefaults::kAdd, PathDetail::kSegments, SIZE_MAX);
}

namespace {
nlohmann::json kinds_json(const std::array<double, kNumPathKinds>& kind_ms) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t k = 0; k < kNumPathKinds; ++k) j[std::string(kPathKindKeys[k])] = kind_ms[k];
  return j;
}
nlohmann::json times_json(const std::vector<PathTime>& times) {
  nlohmann::json j = nlohmann::json::array();
  for (const PathTime& t : times) {
    nlohmann::json time = {{"name", t.name}, {"ms", t.ms}};
    if (!t.long_name.empty()) time["long_name"] = t.long_name;
    j.push_back(std::move(time));
  }
  return j;
}
}  // namespace

std::string what_if_target_name(const std::string& target) {
  return target.starts_with('%') ? std::string(hlo_op_name_of_text(target)) : target;
}

nlohmann::json to_json(const CriticalPath& c) {
  nlohmann::json steps = nlohmann::json::array();
  for (const CriticalPathStep& s : c.steps)
    steps.push_back({{"host", s.host},
                     {"step_num", s.step_num},
                     {"step_ms", s.step_ms},
                     {"path_ms", s.path_ms},
                     {"kind_ms", kinds_json(s.kind_ms)},
                     {"top_ops", times_json(s.top_ops)},
                     {"top_kernels", times_json(s.top_kernels)},
                     {"path", to_json(s.path, s.host)}});
  nlohmann::json what_if = nlohmann::json::array();
  for (const WhatIfPrediction& w : c.what_if) {
    nlohmann::json row = {{"target", what_if_target_name(w.target)},
                          {"scale", w.scale},
                          {"step_ms", w.step_ms},
                          {"reaches_steps", w.reaches_steps}};
    if (w.target.starts_with('%')) row["long_name"] = w.target;
    what_if.push_back(std::move(row));
  }
  nlohmann::json j = {
      {"average",
       {{"step_ms", c.step_ms},
        {"path_ms", c.path_ms},
        {"kind_ms", kinds_json(c.kind_ms)},
        {"top_ops", times_json(c.top_ops)},
        {"top_kernels", times_json(c.top_kernels)}}},
      {"steps", std::move(steps)},
      {"what_if", std::move(what_if)},
      {"prediction_note", c.prediction_note},
      {"links", {{"producer_consumer", c.consumer_links}, {"synchronisation", c.sync_links}, {"launch", c.launch_links}}},
      {"warnings", c.warnings},
      {"labels", path_labels_json(c.on_tpu)},
  };
  if (const auto b = bottleneck_of(c)) {
    j["bottleneck"] = to_json(*b);
    nlohmann::json removed = nlohmann::json::object();
    for (size_t k = 0; k < kNumPathKinds; ++k)
      if (PathKind(k) != PathKind::kWaitingForRank) removed[std::string(kPathKindKeys[k])] = c.removed_step_ms[k];
    j["average"]["step_ms_without_kind"] = std::move(removed);
  }
  return j;
}

std::string to_csv(const CriticalPath& c) {
  std::vector<std::string> header = {"host", "step_num", "step_ms", "path_ms"};
  for (std::string_view k : kPathKindKeys) header.push_back(fmt::format("{}_ms", k));
  std::string out;
  append_csv_row(out, header);
  for (const CriticalPathStep& s : c.steps) {
    std::vector<std::string> row = {s.host, std::to_string(s.step_num), csv_number(s.step_ms), csv_number(s.path_ms)};
    for (double ms : s.kind_ms) row.push_back(csv_number(ms));
    append_csv_row(out, row);
  }
  return out;
}

}  // namespace mlprof::analysis
