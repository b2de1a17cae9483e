#include "analysis/critical_path/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cctype>
#include <future>
#include <iterator>
#include <numeric>
#include <set>
#include <thread>

#include "analysis/critical_path/event_bits.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/critical_path/partial_replay.h"
#include "analysis/critical_path/step_reach.h"
#include "analysis/hlo_ops.h"
#include "analysis/step_breakdown.h"
#include "analysis/tool_registry.h"
#include "format/utf8_text.h"

namespace mlprof::analysis {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<WhatIfChange> parse_what_ifs(std::string_view text) {
  std::vector<WhatIfChange> out;
  while (!text.empty()) {
    const size_t cut = text.find_first_of(";\n");
    const std::string_view entry = trim(text.substr(0, cut));
    text = cut == std::string_view::npos ? std::string_view() : text.substr(cut + 1);
    if (entry.empty()) continue;
    const size_t eq = entry.rfind('=');
    if (eq == std::string_view::npos || eq == 0)
      throw ToolRequestError("what_if", fmt::format("{{option}} takes TARGET=SCALE, not '{}'", entry));
    const std::string_view number = trim(entry.substr(eq + 1));
    double scale = -1;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), scale);
    if (ec != std::errc() || end != number.data() + number.size() || !(scale >= 0 && scale <= 1))
      throw ToolRequestError("what_if",
                             fmt::format("{{option}} takes a scale from 0 to 1 (0 removes, 0.5 halves), not '{}'", number));
    out.push_back({std::string(trim(entry.substr(0, eq))), scale});
  }
  return out;
}

std::optional<EdgeList> match_what_if(const model::Profile& p, const DependencyGraph& g, std::string_view target) {
  return std::move(match_what_ifs(p, g, {std::string(target)}).front());
}

namespace {

constexpr size_t kEdgeKinds = size_t(PathKind::kWaiting) + 1;

// A buffer the thread keeps from one call to the next (a window's graph after another's).
template <typename T>
std::vector<T>& thread_buffer(size_t size) {
  static thread_local std::vector<T> buffer;
  if (buffer.size() < size) buffer.resize(size);
  return buffer;
}

// Up to 64 name targets, bit b for the b-th: the graph's events inside one (named so, or
// nested in one so named), by slot.
struct NamedEvents {
  NamedEvents(const model::Profile& p, const DependencyGraph& g, const std::vector<uint64_t>& name_mask)
      : inside(g.events.size()), any(p.events.size()) {
    // Parents come before their children (event_selection.h).
    const EventSelection& events = g.events;
    events.for_each_with_run([&](model::EventIndex e, uint32_t slot, model::EventIndex run_first) {
      const model::EventIndex parent = p.events.parent[e];
      // Mostly in the same run: its slot then follows from e's.
      const uint32_t parent_slot = parent == model::kNone || parent >= e ? kNoSlot
                                   : parent >= run_first             ? slot - (e - parent)
                                                                     : events.slot(parent);
      inside[slot] = name_mask[p.events.name[e]] | (parent_slot != kNoSlot ? inside[parent_slot] : 0);
      if (inside[slot] != 0) any.set(e);
    });
  }
  UnfilledVector<uint64_t> inside;  // every slot written (no zero-fill first)
  EventBits any;
};

// The edges of each target of `named` (a host event owns its own edges; device work is reached
// through the call that launched it too), and with `kinds` each edge's kind and the count of
// each kind: one pass over the edges serves both.
struct EdgeScan {
  std::vector<EdgeList> matched;  // per bit of the names
  uint64_t reached = 0;           // the bits some edge has
  std::array<uint32_t, kEdgeKinds> count{};
};
EdgeScan scan_edges(const DependencyGraph& g, const NamedEvents* named, size_t num_names, uint8_t* kinds) {
  EdgeScan out;
  out.matched.resize(num_names);
  const PathEdge* edges = g.edges.data();
  const uint32_t n = uint32_t(g.edges.size());
  // An event's edges lie side by side (a kernel's, its launch's): the last event looked up is
  // asked again most.
  model::EventIndex last = model::kNone;
  uint64_t last_bits = 0;
  auto inside_of = [&](model::EventIndex e) -> uint64_t {
    if (e == model::kNone) return 0;
    if (e == last) return last_bits;
    const uint32_t slot = g.events.slot(e);
    last = e;
    last_bits = slot != kNoSlot ? named->inside[slot] : 0;
    return last_bits;
  };
  // Counts kept in four tables in turn: no edge waits for the count of the one before it.
  std::array<std::array<uint32_t, kEdgeKinds>, 4> counts{};
  for (uint32_t k = 0; k < n; ++k) {
    const PathEdge& e = edges[k];
    if (kinds) {
      kinds[k] = uint8_t(e.kind);
      ++counts[k & 3][size_t(e.kind)];
    }
    // A host event owns its own edges: its owner is looked up only where it is another event.
    if (!named || (!named->any.test(e.event) && (e.owner == e.event || !named->any.test(e.owner)))) continue;
    uint64_t bits = inside_of(e.event);
    if (e.owner != e.event) bits |= inside_of(e.owner);
    out.reached |= bits;
    for (; bits != 0; bits &= bits - 1) out.matched[size_t(std::countr_zero(bits))].push_back(k);
  }
  for (size_t kind = 0; kind < kEdgeKinds; ++kind)
    out.count[kind] = counts[0][kind] + counts[1][kind] + counts[2][kind] + counts[3][kind];
  return out;
}

// Every kind's edges, ascending, from their kinds and counts. Edges of one kind come in runs
// (a thread's program order, a stream's kernels): the run's list end stays in a register.
std::array<EdgeList, kEdgeKinds> edges_by_kind(const uint8_t* kinds, uint32_t n,
                                               const std::array<uint32_t, kEdgeKinds>& count) {
  std::array<EdgeList, kEdgeKinds> out;
  std::array<uint32_t*, kEdgeKinds> fill;
  for (size_t kind = 0; kind < kEdgeKinds; ++kind) {
    out[kind].resize(count[kind]);
    fill[kind] = out[kind].data();
  }
  if (n == 0) return out;
  size_t run_kind = kinds[0];
  uint32_t* end = fill[run_kind];
  for (uint32_t k = 0; k < n; ++k) {
    if (kinds[k] != run_kind) {
      fill[run_kind] = end;
      run_kind = kinds[k];
      end = fill[run_kind];
    }
    *end++ = k;
  }
  return out;
}

}  // namespace

NamesByText::NamesByText(const model::Profile& p) {
  for (model::NameIndex n = 0; n < p.names.size(); ++n) {
    const std::string_view text = p.strings.view(p.names[n].name);
    exact[text].push_back(n);
    if (text.starts_with('%')) hlo_op[hlo_op_name_of_text(text)].push_back(n);
  }
}

std::vector<std::optional<EdgeList>> match_what_ifs(const model::Profile& p, const DependencyGraph& g,
                                                    const std::vector<std::string>& targets, const NamesByText* names) {
  std::vector<std::optional<EdgeList>> out(targets.size());
  // Names: bit i of a name's mask is set when it is targets[i]; kinds and categories directly.
  std::vector<size_t> by_name;  // indices into targets
  std::vector<std::optional<PathKind>> kind_of(targets.size());
  bool any_kind = false;
  for (size_t i = 0; i < targets.size(); ++i) {
    kind_of[i] = path_kind_of_target(targets[i]);
    if (!kind_of[i]) by_name.push_back(i);
    any_kind |= kind_of[i].has_value();
  }
  // The kinds' edges come from the pass over the edges that the first 64 names make.
  uint8_t* kinds = any_kind ? thread_buffer<uint8_t>(g.edges.size()).data() : nullptr;
  std::optional<EdgeScan> kinds_scan;
  for (size_t first = 0; first < by_name.size() || (first == 0 && any_kind); first += 64) {
    const size_t count = std::min<size_t>(64, by_name.size() - first);
    std::vector<uint64_t> name_mask(count > 0 ? p.names.size() : 0, 0);
    uint64_t named = 0;
    if (names) {
      for (size_t b = 0; b < count; ++b)
        if (auto it = names->exact.find(targets[by_name[first + b]]); it != names->exact.end())
          for (model::NameIndex n : it->second) name_mask[n] |= uint64_t(1) << b, named |= uint64_t(1) << b;
    } else if (count > 0) {
      for (size_t n = 0; n < p.names.size(); ++n) {
        const std::string_view name = p.strings.view(p.names[n].name);
        for (size_t b = 0; b < count; ++b)
          if (name == targets[by_name[first + b]]) name_mask[n] |= uint64_t(1) << b;
        named |= name_mask[n];
      }
    }
    uint8_t* kinds_now = first == 0 ? kinds : nullptr;
    if (named == 0 && !kinds_now) continue;
    std::optional<NamedEvents> events;
    if (named != 0) events.emplace(p, g, name_mask);
    EdgeScan scan = scan_edges(g, events ? &*events : nullptr, count, kinds_now);
    for (size_t b = 0; b < count; ++b)  // a name no step's graph holds matches nothing
      if (scan.reached >> b & 1) out[by_name[first + b]] = std::move(scan.matched[b]);
    if (kinds_now) kinds_scan = std::move(scan);
  }
  if (any_kind) {  // every kind's edges, each list sized first (no growing)
    std::array<EdgeList, kEdgeKinds> of_kind = edges_by_kind(kinds, uint32_t(g.edges.size()), kinds_scan->count);
    std::array<size_t, kEdgeKinds> asked{};  // targets per kind: the last one asked takes the list
    for (size_t i = 0; i < targets.size(); ++i)
      if (kind_of[i]) ++asked[size_t(*kind_of[i])];
    for (size_t i = 0; i < targets.size(); ++i)
      if (kind_of[i]) {
        const size_t k = size_t(*kind_of[i]);
        out[i] = --asked[k] == 0 ? std::move(of_kind[k]) : of_kind[k];
      }
  }
  return out;
}

std::vector<std::string> close_targets(const model::Profile& p, const DependencyGraph& g, std::string_view target) {
  std::vector<uint8_t> names(p.names.size(), 0);
  for (const PathEdge& e : g.edges)
    if (e.event != model::kNone) names[p.events.name[e.event]] = 1;
  return close_targets(p, names, target);
}

std::vector<std::string> close_targets(const model::Profile& p, const std::vector<uint8_t>& names,
                                       std::string_view target) {
  std::set<std::string> candidates(kPathKindKeys.begin(), kPathKindKeys.end());
  for (std::string_view c : kCategoryKeys) candidates.emplace(c);
  for (model::NameIndex n = 0; n < names.size(); ++n)
    if (names[n]) candidates.emplace(p.strings.view(p.names[n].name));
  const std::string want = lower(target);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    const std::string l = lower(c);
    const size_t score = l.find(want) != std::string::npos || want.find(l) != std::string::npos
                             ? 0
                             : edit_distance(want, l.substr(0, want.size() + 4));
    scored.emplace_back(score, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < 5; ++i) out.push_back(scored[i].second);
  return out;
}

double predicted_step_ms(const DependencyGraph& g, const EdgeList& matched, double scale) {
  if (g.steps.empty()) return 0;
  std::vector<uint8_t> scaled(g.edges.size(), 0);
  for (uint32_t k : matched) scaled[k] = 1;
  const Replay r = replay(g, &scaled, scale, false);
  double total = 0;
  for (const GraphStep& s : g.steps)
    if (s.reported) total += double(replayed_duration_ps(g, r, s));
  return total / double(g.num_reported_steps()) / 1e9;
}

struct WhatIfPredictor::Shared {
  UnfilledVector<int64_t> measured_ps;
  UnfilledVector<uint32_t> binding;  // per node: the in-edge that set its measured time
  std::vector<uint8_t> setting;   // per node: whether a step's time follows from it (step_reach.h)
  double measured_total_ps = 0;   // the reported steps' lengths summed
  OutEdges out;          // made once a change follows its marks (none replays to the end)
  bool out_made = false;
  std::vector<std::unique_ptr<PartialReplay>> replayers;  // one a thread
};

WhatIfPredictor::WhatIfPredictor(const model::Profile& p, const DependencyGraph& g,
                                 std::set<std::string, std::less<>> step_root_names)
    : p_(p), g_(g), step_root_names_(std::move(step_root_names)) {}
WhatIfPredictor::~WhatIfPredictor() = default;

void WhatIfPredictor::set_measured(Replay measured) {
  if (shared_) return;
  shared_ = std::make_unique<Shared>();
  shared_->setting = nodes_setting_steps(g_, measured.binding);
  for (const GraphStep& step : g_.steps)
    if (step.reported) shared_->measured_total_ps += double(replayed_duration_ps(g_, measured, step));
  shared_->measured_ps = std::move(measured.time_ps);
  shared_->binding = std::move(measured.binding);
}

WhatIfPredictor::Shared& WhatIfPredictor::shared() {
  if (!shared_) set_measured(replay(g_, nullptr, 1, true));
  return *shared_;
}

void WhatIfPredictor::make(const std::vector<WhatIfChange>& changes) {
  match_all(changes);
  std::vector<std::pair<const EdgeList*, double>> jobs;
  std::vector<std::pair<std::string, double>> keys;
  for (const WhatIfChange& c : changes) {
    if (predicted_.count({c.target, c.scale}) ||
        std::find(keys.begin(), keys.end(), std::make_pair(c.target, c.scale)) != keys.end())
      continue;
    jobs.emplace_back(&matched(c.target), c.scale);
    keys.emplace_back(c.target, c.scale);
  }
  if (jobs.empty()) return;
  if (g_.steps.empty()) {
    for (size_t j = 0; j < jobs.size(); ++j) predicted_.emplace(keys[j], 0.0);
    return;
  }
  Shared& s = shared();
  // A change that shortens only edges setting no step's time leaves the steps as measured.
  for (size_t j = 0; j < jobs.size();) {
    if (may_move_steps(g_, s.setting, s.binding, *jobs[j].first, jobs[j].second)) {
      ++j;
      continue;
    }
    predicted_.emplace(keys[j], s.measured_total_ps);
    jobs.erase(jobs.begin() + long(j));
    keys.erase(keys.begin() + long(j));
  }
  if (jobs.empty()) return;
  std::vector<double> total_ps(jobs.size());
  const size_t threads =
      std::min<size_t>(std::max(1u, std::min({std::thread::hardware_concurrency(), 8u, max_threads_})), jobs.size());
  while (s.replayers.size() < threads)
    s.replayers.push_back(std::make_unique<PartialReplay>(g_, s.measured_ps, s.out));
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::vector<uint64_t> key(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    key[j] = s.replayers.front()->order_key(*jobs[j].first);
    if (key[j] == 0 && !jobs[j].first->empty() && !s.out_made) {  // before the threads read it
      s.out = out_edges(g_);
      s.out_made = true;
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
  // Each thread makes a run of them in that order (those that replay to the end two at a time):
  // runs of an even length, so that two made together start near each other.
  const size_t run = ((order.size() + threads - 1) / threads + 1) & ~size_t(1);
  auto make_run = [&](size_t t) {
    std::vector<PartialReplay::Change> changes;
    for (size_t i = t * run; i < std::min(order.size(), (t + 1) * run); ++i) changes.push_back(jobs[order[i]]);
    const std::vector<double> total = s.replayers[t]->total_step_ps(changes);
    for (size_t i = 0; i < changes.size(); ++i) total_ps[order[t * run + i]] = total[i];
  };
  // The first run on this thread, the others on their own.
  std::vector<std::future<void>> running;
  for (size_t t = 1; t * run < order.size(); ++t)
    running.push_back(std::async(std::launch::async, make_run, t));
  make_run(0);
  for (auto& r : running) r.get();
  for (size_t j = 0; j < jobs.size(); ++j) predicted_.emplace(keys[j], total_ps[j]);
}

double WhatIfPredictor::step_ms(const std::string& target, double scale) {
  const size_t n = g_.num_reported_steps();
  return n == 0 ? 0 : total_step_ps(target, scale) / double(n) / 1e9;
}

double WhatIfPredictor::total_step_ps(const std::string& target, double scale) {
  auto done = predicted_.find({target, scale});
  if (done == predicted_.end()) {
    make({{target, scale}});
    done = predicted_.find({target, scale});
  }
  return done->second;
}

double WhatIfPredictor::measured_total_ps() {
  Shared& s = shared();
  if (s.replayers.empty()) s.replayers.push_back(std::make_unique<PartialReplay>(g_, s.measured_ps, s.out));
  return s.replayers.front()->total_step_ps({}, 1);
}

void WhatIfPredictor::match_all(const std::vector<WhatIfChange>& changes) {
  std::vector<std::string> targets;
  auto ask = [&](std::string_view target) {
    if (!matched_.count(target) && !unmatched_.count(target) &&
        std::find(targets.begin(), targets.end(), target) == targets.end())
      targets.emplace_back(target);
  };
  bool any_kind = false;
  for (const WhatIfChange& c : changes) {
    ask(c.target);
    any_kind |= path_kind_of_target(c.target).has_value();
  }
  // One pass over the edges finds every kind's: find them all the first time one is asked.
  if (any_kind)
    for (std::string_view key : kPathKindKeys) ask(key);
  auto found = match_what_ifs(p_, g_, targets, names_);
  for (size_t i = 0; i < targets.size(); ++i)
    if (found[i]) matched_.emplace(targets[i], std::move(*found[i]));
}

bool WhatIfPredictor::matches(const std::string& target) {
  if (unmatched_.count(target)) return false;
  if (!matched_.count(target)) match_all({{target, 0}});
  if (!matched_.count(target)) {
    if (auto alias = match_hlo_op_name(target)) matched_.emplace(target, std::move(*alias));
    else unmatched_.insert(target);
  }
  return matched_.count(target) > 0;
}

bool WhatIfPredictor::reaches_steps(const std::string& target) {
  if (!reach_) reach_ = std::make_unique<StepReach>(g_);
  return reach_->reaches(matched(target));
}

const EdgeList& WhatIfPredictor::matched(const std::string& target) {
  auto it = matched_.find(target);
  if (it != matched_.end()) return it->second;
  if (auto alias = match_hlo_op_name(target)) return matched_.emplace(target, std::move(*alias)).first->second;
  throw unmatched_target(close_targets(p_, g_, target), step_root_names_, target);
}

ToolRequestError unmatched_target(const std::vector<std::string>& close_names,
                                  const std::set<std::string, std::less<>>& step_root_names, std::string_view target) {
  std::vector<std::string> close;
  for (const std::string& name : close_names)
    if (!step_root_names.count(name)) close.push_back(format::make_valid_utf8(name));
  return ToolRequestError("what_if", fmt::format("{{option}}: '{}' names no kind, category, op or kernel of "
                                                 "the steps; close names: {}",
                                                 format::make_valid_utf8(target), fmt::join(close, ", ")));
}

std::vector<uint8_t> graph_event_names(const model::Profile& p, const StepAnalysis& steps, const GraphInputs& inputs) {
  std::vector<uint8_t> out(p.names.size(), 0);
  std::vector<uint8_t> plane_has_streams(p.planes.size(), 0);
  for (const model::Line& line : p.lines)
    if (line.kind == model::LineKind::kStream && line.num_events > 0) plane_has_streams[line.plane] = 1;
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    const model::PlaneKind plane = p.planes[line.plane].kind;
    const bool host_thread = line.kind == model::LineKind::kThread && plane == model::PlaneKind::kHostThreads;
    // Devices without streams: their work lines' outermost events (dependency_graph.cc).
    const bool op_line = plane == model::PlaneKind::kDevice && line.kind != model::LineKind::kStream &&
                         !plane_has_streams[line.plane] && l < steps.grouping.device_work_line.size() &&
                         steps.grouping.device_work_line[l];
    if (!host_thread && !op_line) continue;
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e)
      if (host_thread || p.events.parent[e] == model::kNone) out[p.events.name[e]] = 1;
  }
  for (const HostGpuActivity& h : inputs.activity.hosts)
    for (const GpuWork& w : h.work) out[p.events.name[w.event]] = 1;
  for (const WindowDeviceInputs::Host& h : inputs.windows.hosts)
    for (const GpuStream& s : h.streams) {
      const model::Line& line = p.lines[s.line];
      for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) out[p.events.name[e]] = 1;
    }
  return out;
}

std::vector<model::NameIndex> target_names(const model::Profile& p, const std::vector<uint8_t>& in_graphs,
                                           std::string_view target) {
  std::vector<model::NameIndex> exact, alias;
  for (model::NameIndex n = 0; n < p.names.size(); ++n) {
    if (!in_graphs[n]) continue;
    const std::string_view text = p.strings.view(p.names[n].name);
    if (text == target) exact.push_back(n);
    else if (text.starts_with('%') && hlo_op_name_of_text(text) == target) alias.push_back(n);
  }
  return exact.empty() ? alias : exact;
}

// An XLA op by its HLO op name ("copy-done.2", as the reports name it): every instruction whose
// text names it.
std::optional<EdgeList> WhatIfPredictor::match_hlo_op_name(const std::string& target) const {
  std::vector<std::string> texts;
  auto add = [&](std::string_view text) {
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.emplace_back(text);
  };
  if (names_) {
    if (auto it = names_->hlo_op.find(target); it != names_->hlo_op.end())
      for (model::NameIndex n : it->second) add(p_.strings.view(p_.names[n].name));
  } else {
    for (const model::EventName& n : p_.names) {
      const std::string_view text = p_.strings.view(n.name);
      if (text.starts_with('%') && hlo_op_name_of_text(text) == target) add(text);
    }
  }
  std::optional<EdgeList> out;
  for (auto& found : match_what_ifs(p_, g_, texts, names_)) {
    if (!found) continue;
    if (!out) {
      out = std::move(found);
      continue;
    }
    EdgeList both;
    std::set_union(out->begin(), out->end(), found->begin(), found->end(), std::back_inserter(both));
    *out = std::move(both);
  }
  return out;
}

}  // namespace mlprof::analysis
