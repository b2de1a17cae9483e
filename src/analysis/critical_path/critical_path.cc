#include "analysis/critical_path/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <map>
#include <thread>

#include "analysis/critical_path/bottleneck.h"
#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/csv.h"
#include "analysis/tool_registry.h"

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

std::vector<PathTime> largest(const std::map<std::string, double>& by_name, size_t n, double divide) {
  std::vector<PathTime> out;
  for (const auto& [name, ms] : by_name) out.push_back({name, ms / divide});
  std::sort(out.begin(), out.end(), [](const PathTime& a, const PathTime& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.name < b.name;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

// What one step's path holds, by kind and by op or kernel name.
struct StepPath {
  std::array<double, kNumPathKinds> kind_ms{};
  std::map<std::string, double> ops, kernels;
};

// An event lasting this share of its step or more spans the step (the step's marker, an
// annotation around the whole iteration): its time on the path is the gaps between the ops
// inside it, and removing it would remove the step, so it is neither a top op nor a what-if.
constexpr double kSpansStepShare = 0.9;

StepPath read_path(const model::Profile& p, const DependencyGraph& g, const std::vector<PathPiece>& path,
                   const GraphStep& step) {
  const uint32_t host = step.host;
  const double spanning_ps = kSpansStepShare * double(step.end_ps - step.begin_ps);
  StepPath out;
  for (const PathPiece& piece : path) {
    const double ms = double(piece.ps) / kPsPerMs;
    if (piece.edge == UINT32_MAX) {
      out.kind_ms[size_t(PathKind::kIdle)] += ms;
      continue;
    }
    const PathEdge& e = g.edges[piece.edge];
    PathKind kind = e.kind == PathKind::kWaiting ? PathKind::kIdle : e.kind;
    if (e.host != host) kind = PathKind::kWaitingForRank;  // another rank's work held this one
    out.kind_ms[size_t(kind)] += ms;
    if (e.event == model::kNone || ms <= 0) continue;
    const bool on_device = is_device_kind(e.kind) && p.plane_of(e.event).kind == model::PlaneKind::kDevice;
    if (!on_device && double(p.duration_ps(e.event)) >= spanning_ps) continue;
    (on_device ? out.kernels : out.ops)[std::string(p.name(e.event))] += ms;
  }
  return out;
}

// Predictions made once per target and scale: the defaults and the bottleneck ask the same.
class Predictor {
 public:
  Predictor(const model::Profile& p, const DependencyGraph& g) : p_(p), g_(g) {}

  // Makes the predictions of `changes` not made yet, the replays on every core (each reads the
  // graph alone). Throws as step_ms.
  void make(const std::vector<WhatIfChange>& changes) {
    match_all(changes);
    std::vector<std::pair<const std::vector<uint8_t>*, double>> jobs;
    std::vector<std::pair<std::string, double>> keys;
    for (const WhatIfChange& c : changes) {
      if (predicted_.count({c.target, c.scale}) ||
          std::find(keys.begin(), keys.end(), std::make_pair(c.target, c.scale)) != keys.end())
        continue;
      jobs.emplace_back(&matched(c.target), c.scale);
      keys.emplace_back(c.target, c.scale);
    }
    std::vector<double> ms(jobs.size());
    const size_t threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
    std::vector<std::future<void>> running;
    for (size_t t = 0; t < threads && t < jobs.size(); ++t)
      running.push_back(std::async(std::launch::async | std::launch::deferred, [&, t] {
        for (size_t j = t; j < jobs.size(); j += threads) ms[j] = predicted_step_ms(g_, *jobs[j].first, jobs[j].second);
      }));
    for (auto& r : running) r.get();
    for (size_t j = 0; j < jobs.size(); ++j) predicted_.emplace(keys[j], ms[j]);
  }

  // Throws ToolRequestError when the target names nothing, listing close names.
  double step_ms(const std::string& target, double scale) {
    auto done = predicted_.find({target, scale});
    if (done != predicted_.end()) return done->second;
    const double ms = predicted_step_ms(g_, matched(target), scale);
    predicted_.emplace(std::make_pair(target, scale), ms);
    return ms;
  }

 private:
  // The edges of every target not matched yet, in one pass.
  void match_all(const std::vector<WhatIfChange>& changes) {
    std::vector<std::string> targets;
    for (const WhatIfChange& c : changes)
      if (!matched_.count(c.target) && std::find(targets.begin(), targets.end(), c.target) == targets.end())
        targets.push_back(c.target);
    auto found = match_what_ifs(p_, g_, targets);
    for (size_t i = 0; i < targets.size(); ++i)
      if (found[i]) matched_.emplace(targets[i], std::move(*found[i]));
  }

  const std::vector<uint8_t>& matched(const std::string& target) {
    auto it = matched_.find(target);
    if (it == matched_.end()) {
      auto matched = match_what_if(p_, g_, target);
      if (!matched) {
        const std::vector<std::string> close = close_targets(p_, g_, target);
        throw ToolRequestError("what_if", fmt::format("{{option}}: '{}' names no kind, category, op or kernel of "
                                                      "the steps; close names: {}",
                                                      target, fmt::join(close, ", ")));
      }
      it = matched_.emplace(target, std::move(*matched)).first;
    }
    return it->second;
  }

  const model::Profile& p_;
  const DependencyGraph& g_;
  std::map<std::string, std::vector<uint8_t>> matched_;
  std::map<std::pair<std::string, double>, double> predicted_;
};

void add_predictions(Predictor& predict, const std::vector<WhatIfChange>& changes, CriticalPath& c) {
  predict.make(changes);
  for (const WhatIfChange& change : changes)
    c.what_if.push_back({change.target, change.scale, predict.step_ms(change.target, change.scale)});
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
  for (size_t i = 0; i < named.size() && i < kTopOverall; ++i)
    for (double scale : {0.0, 0.5}) out.push_back({named[i].name, scale});
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
  // Savings below this share of the path are noise of the replay.
  constexpr double kMinSavingShare = 0.01;
  PathKind best = largest_kind();
  double best_saving = path_ms * kMinSavingShare;
  for (size_t k = 0; k < kNumPathKinds; ++k) {
    if (PathKind(k) == PathKind::kWaitingForRank) continue;
    const double saving = saving_if_removed_ms(PathKind(k));
    if (saving > best_saving) {
      best = PathKind(k);
      best_saving = saving;
    }
  }
  return best;
}

namespace {

CriticalPath critical_path_of_graph(const model::Profile& p, const DependencyGraph& g,
                                    const std::vector<WhatIfChange>& what_if, bool defaults) {
  CriticalPath c;
  for (const model::Plane& plane : p.planes) c.on_tpu |= p.strings.view(plane.name).starts_with("/device:TPU:");
  c.consumer_links = g.consumer_links;
  c.sync_links = g.sync_links;
  c.launch_links = g.launch_links;
  if (g.cut_edges > 0)
    c.warnings.push_back(fmt::format("{} dependencies went back in time (clock skew or broken flows) and were cut",
                                     g.cut_edges));
  Predictor predict(p, g);
  if (g.steps.empty()) {
    if (!what_if.empty()) add_predictions(predict, what_if, c);
    return c;
  }
  const Replay measured = replay(g, nullptr, 1, true);
  std::map<std::string, double> ops, kernels;
  for (const GraphStep& gs : g.steps) {
    const std::vector<PathPiece> pieces = critical_path(g, measured, gs);
    const StepPath sp = read_path(p, g, pieces, gs);
    CriticalPathStep s;
    s.path = path_segments(p, g, measured, pieces, gs, segments_cap(c.steps.size(), g.steps.size()));
    s.host = std::string(p.strings.view(p.hosts[gs.host].name));
    s.step_num = gs.step_num;
    s.step_ms = double(gs.end_ps - gs.begin_ps) / kPsPerMs;
    s.path_ms = double(replayed_duration_ps(g, measured, gs)) / kPsPerMs;
    s.kind_ms = sp.kind_ms;
    s.top_ops = largest(sp.ops, kTopPerStep, 1);
    s.top_kernels = largest(sp.kernels, kTopPerStep, 1);
    for (const auto& [name, ms] : sp.ops) ops[name] += ms;
    for (const auto& [name, ms] : sp.kernels) kernels[name] += ms;
    c.step_ms += s.step_ms;
    c.path_ms += s.path_ms;
    for (size_t k = 0; k < kNumPathKinds; ++k) c.kind_ms[k] += s.kind_ms[k];
    c.steps.push_back(std::move(s));
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
    if (PathKind(k) != PathKind::kWaitingForRank && c.kind_ms[k] > 0) removals.push_back({std::string(kPathKindKeys[k]), 0});
  predict.make(removals);
  if (!what_if.empty() || defaults) add_predictions(predict, what_if.empty() ? default_changes(c) : what_if, c);
  for (size_t k = 0; k < kNumPathKinds; ++k)
    c.removed_step_ms[k] = PathKind(k) == PathKind::kWaitingForRank || c.kind_ms[k] <= 0
                               ? c.path_ms
                               : predict.step_ms(std::string(kPathKindKeys[k]), 0);
  const PathKind b = c.bottleneck();
  const std::string key(path_kind_key(b));
  c.bottleneck_change = {key, recommended_scale(b),
                         b == PathKind::kWaitingForRank ? c.path_ms : predict.step_ms(key, recommended_scale(b))};
  return c;
}

}  // namespace

CriticalPath compute_critical_path(const model::Profile& p, const StepAnalysis& steps,
                                   const std::vector<WhatIfChange>& what_if, bool defaults) {
  return critical_path_of_graph(p, build_dependency_graph(p, steps), what_if, defaults);
}

CriticalPath compute_critical_path_of_spans(const model::Profile& p, const StepAnalysis& steps,
                                            const std::vector<StepSpan>& spans, const std::vector<WhatIfChange>& what_if,
                                            bool defaults) {
  return critical_path_of_graph(p, build_dependency_graph(p, steps, spans), what_if, defaults);
}

CriticalPath compute_critical_path_of_annotation(const model::Profile& p, const StepAnalysis& steps,
                                                 std::string_view annotation,
                                                 const std::vector<WhatIfChange>& what_if) {
  return critical_path_of_graph(p, build_dependency_graph(p, steps, annotation_spans(p, annotation)), what_if, true);
}

namespace {
nlohmann::json kinds_json(const std::array<double, kNumPathKinds>& kind_ms) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t k = 0; k < kNumPathKinds; ++k) j[std::string(kPathKindKeys[k])] = kind_ms[k];
  return j;
}
nlohmann::json times_json(const std::vector<PathTime>& times) {
  nlohmann::json j = nlohmann::json::array();
  for (const PathTime& t : times) j.push_back({{"name", t.name}, {"ms", t.ms}});
  return j;
}
}  // namespace

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
  for (const WhatIfPrediction& w : c.what_if)
    what_if.push_back({{"target", w.target}, {"scale", w.scale}, {"step_ms", w.step_ms}});
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
