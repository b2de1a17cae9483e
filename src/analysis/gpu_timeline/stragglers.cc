#include "analysis/host_labels.h"
#include "analysis/gpu_timeline/stragglers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/csv.h"
#include "analysis/gpu_timeline/collective_mismatch.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/gpu_work_order.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

double over_pct(double value, double reference) { return reference > 0 ? 100.0 * (value - reference) / reference : 0; }

// Lateness at collective calls matched across ranks, and the straggler's causes.
void analyse_arrivals(const std::vector<const RankSteps*>& hosts, StragglerAnalysis& out) {
  std::vector<const std::vector<CollectiveCall>*> calls_of;
  for (const RankSteps* h : hosts) calls_of.push_back(&h->calls);
  const std::vector<MatchedCall> matched = match_collective_calls(calls_of);
  // Per rank and step: its largest lateness at a call of the step, and at which call.
  struct StepLate {
    double ms = -1e300;
    std::string at;
  };
  std::vector<std::map<int64_t, StepLate>> step_late(hosts.size());
  size_t by_arrival = 0;
  std::vector<const MatchedCall*> calls;
  for (const MatchedCall& call : matched) {
    calls.push_back(&call);
    const bool arrival = call.clocks_agree;
    by_arrival += arrival;
    size_t latest = 0;
    for (size_t i = 0; i < call.ranks.size(); ++i) {
      std::vector<double> others;
      for (size_t j = 0; j < call.ranks.size(); ++j)
        if (j != i) others.push_back(arrival ? double(call.ranks[j].second->start_ps) : double(call.ranks[j].second->duration_ps));
      const CollectiveCall& mine = *call.ranks[i].second;
      const double late_ms = (arrival ? double(mine.start_ps) - median_of(others) : median_of(others) - double(mine.duration_ps)) / 1e9;
      const size_t r = call.ranks[i].first;
      StepLate& worst = step_late[r][mine.step_num];
      if (late_ms > worst.ms) worst = {late_ms, mine.name};
      ++out.ranks[r].calls_matched;
      if (mine.duration_ps < call.ranks[latest].second->duration_ps) latest = i;
    }
    ++out.ranks[call.ranks[latest].first].latest_in;
  }
  out.matched_calls = calls.size();
  if (calls.empty()) return;
  // Each step's latest rank.
  for (StragglerStep& step : out.steps)
    for (const RankStepTimes& t : step.ranks) {
      const auto it = step_late[t.rank].find(step.step_num);
      if (it != step_late[t.rank].end() && (step.latest < 0 || it->second.ms > step.latest_late_ms))
        step.latest = int(t.rank), step.latest_late_ms = it->second.ms;
    }
  out.lateness_from = by_arrival * 2 >= calls.size() ? "arrival" : "time_in_call";
  for (size_t r = 0; r < hosts.size(); ++r) {
    if (step_late[r].empty()) continue;
    double sum = 0;
    for (const auto& [step, late] : step_late[r]) sum += late.ms;
    out.ranks[r].late_ms = sum / double(step_late[r].size());
  }

  size_t latest = 0;
  for (size_t r = 1; r < out.ranks.size(); ++r)
    if (out.ranks[r].late_ms > out.ranks[latest].late_ms) latest = r;
  if (out.ranks[latest].late_ms < kMinLateMs) return;
  out.straggler = int(latest);
  std::map<std::string, size_t> at_count;
  for (const auto& [step, late] : step_late[latest]) ++at_count[late.at];
  out.late_at = std::max_element(at_count.begin(), at_count.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;

  // Its causes: what its calling thread did before the calls, beyond the others' median.
  std::map<std::string, double> excess;
  std::set<int64_t> steps;
  for (const MatchedCall* call : calls) {
    const CollectiveCall* mine = nullptr;
    std::vector<const CollectiveCall*> others;
    for (const auto& [r, c] : call->ranks) {
      if (r == latest) mine = c;
      else others.push_back(c);
    }
    if (!mine) continue;
    steps.insert(mine->step_num);
    std::set<std::string> ops;
    for (const auto& [name, ps] : mine->before) ops.insert(name);
    for (const CollectiveCall* o : others)
      for (const auto& [name, ps] : o->before) ops.insert(name);
    auto time_in = [](const CollectiveCall& c, const std::string& name) {
      for (const auto& [n, ps] : c.before)
        if (n == name) return double(ps) / 1e9;
      return 0.0;
    };
    for (const std::string& name : ops) {
      std::vector<double> theirs;
      for (const CollectiveCall* o : others) theirs.push_back(time_in(*o, name));
      excess[name] += time_in(*mine, name) - median_of(theirs);
    }
  }
  const double n_steps = double(std::max<size_t>(1, steps.size()));
  out.late_per_step_ms = out.ranks[latest].late_ms;
  for (const auto& [name, ms_total] : excess)
    if (ms_total / n_steps >= 0.05 * out.ranks[latest].late_ms && ms_total > 0) out.causes.push_back({name, ms_total / n_steps});
  std::sort(out.causes.begin(), out.causes.end(), [](const auto& a, const auto& b) { return a.excess_ms > b.excess_ms; });
  if (out.causes.size() > kMaxCauses) out.causes.resize(kMaxCauses);
  for (const StragglerCause& c : out.causes) out.explained_ms += c.excess_ms;
  // Host and GPU causes of one delay overlap (a kernel that ran longer kept the thread waiting).
  out.explained_ms = std::min(out.explained_ms, out.late_per_step_ms);
  if (out.explained_ms < 0.5 * out.late_per_step_ms)
    out.note = "most of its lateness happened before what its calling thread recorded: capture more steps, or "
               "trace the thread that feeds it";
}

}  // namespace

StragglerAnalysis compute_stragglers(const model::Profile& profile, const StepGrouping& grouping) {
  return compute_stragglers(profile, grouping, collect_gpu_activity(profile, grouping, GpuScope::kAnalysedSteps));
}

std::vector<RankSteps> rank_steps(const model::Profile& profile, const StepGrouping& grouping,
                                  const GpuActivity& gpu) {
  std::vector<RankSteps> out(profile.hosts.size());
  const std::vector<std::string> labels = host_labels(profile);
  for (uint32_t h = 0; h < profile.hosts.size(); ++h) {
    out[h].host = labels[h];
    out[h].file = std::string(profile.strings.view(profile.hosts[h].name));
  }
  for (uint32_t s : grouping.selected) {
    const Step& step = grouping.steps[s];
    out[step.host].steps.push_back({step.step_num, step.duration_ps(), 0, 0});
  }
  for (uint32_t h = 0; h < profile.hosts.size(); ++h) {
    out[h].calls = collect_collective_calls(profile, grouping, gpu, h);
    // Without GPUs, communication is the time in the host's collective calls.
    for (const CollectiveCall& c : out[h].calls)
      if (!c.on_device)
        for (RankSteps::Times& t : out[h].steps)
          if (t.step_num == c.step_num) t.communication_ps += c.duration_ps;
  }
  for (const HostGpuActivity& host : gpu.hosts) {
    RankSteps& rank = out[host.host];
    rank.has_gpu_work = true;
    if (rank.steps.empty()) continue;
    std::vector<SortedUnion> comp(host.windows.size()), comm(host.windows.size());
    visit_by_start(host, [&](const GpuWork& w) {
      if (w.kind == GpuWorkKind::kComputation) comp[w.window].add(host.begin_ps(w), host.end_ps(w));
      else if (w.kind == GpuWorkKind::kCommunication) comm[w.window].add(host.begin_ps(w), host.end_ps(w));
    });
    for (size_t wi = 0; wi < host.windows.size(); ++wi) {
      for (RankSteps::Times& t : rank.steps)
        if (t.step_num == host.window_step_num[wi]) {
          t.compute_ps = comp[wi].length();
          t.communication_ps = comm[wi].length();
          break;
        }
    }
  }
  return out;
}

StragglerAnalysis compute_stragglers(const model::Profile& profile, const StepGrouping& grouping,
                                     const GpuActivity& gpu) {
  return compute_stragglers(rank_steps(profile, grouping, gpu));
}

StragglerAnalysis compute_stragglers(const std::vector<RankSteps>& hosts) {
  StragglerAnalysis out;
  // Per step number, each rank's times.
  std::map<int64_t, std::vector<RankStepTimes>> by_step;
  std::vector<const RankSteps*> ranked;
  for (const RankSteps& host : hosts) {
    out.uses_gpu_compute |= host.has_gpu_work;
    if (host.steps.empty()) continue;
    const size_t rank = out.ranks.size();
    out.ranks.push_back({host.host, host.file});
    ranked.push_back(&host);
    for (const RankSteps::Times& t : host.steps)
      by_step[t.step_num].push_back({rank, t.step_ps, t.compute_ps, t.communication_ps, 0});
  }
  auto load = [&](const RankStepTimes& t) { return out.uses_gpu_compute ? t.compute_ps : t.step_ps; };

  for (auto& [num, ranks] : by_step) {
    for (const RankStepTimes& t : ranks) {
      StragglerRank& r = out.ranks[t.rank];
      ++r.steps;
      r.step_ms += ms(t.step_ps);
      r.compute_ms += ms(t.compute_ps);
      r.communication_ms += ms(t.communication_ps);
    }
    if (ranks.size() < 2) continue;
    StragglerStep step;
    step.step_num = num;
    step.ranks = ranks;
    int64_t least_comm = INT64_MAX;
    for (const RankStepTimes& t : step.ranks) least_comm = std::min(least_comm, t.communication_ps);
    for (size_t i = 0; i < step.ranks.size(); ++i) {
      RankStepTimes& t = step.ranks[i];
      t.wait_ps = t.communication_ps - least_comm;
      out.ranks[t.rank].wait_ms += ms(t.wait_ps);
      if (load(t) > load(step.ranks[step.slowest])) step.slowest = i;
    }
    std::vector<double> others;
    for (size_t i = 0; i < step.ranks.size(); ++i)
      if (i != step.slowest) others.push_back(double(load(step.ranks[i])));
    step.slowest_vs_median_pct = over_pct(double(load(step.ranks[step.slowest])), median_of(others));
    ++out.ranks[step.ranks[step.slowest].rank].slowest_in;
    out.steps.push_back(std::move(step));
  }
  for (StragglerRank& r : out.ranks) {
    if (r.steps == 0) continue;
    const double n = double(r.steps);
    r.step_ms /= n, r.compute_ms /= n, r.communication_ms /= n, r.wait_ms /= n;
  }

  if (out.ranks.size() < 2) return out;
  std::vector<const RankSteps*> all;
  for (const RankSteps& host : hosts) all.push_back(&host);
  out.mismatches = collective_mismatches(all);
  analyse_arrivals(ranked, out);
  if (out.matched_calls > 0 || out.steps.empty()) return out;
  auto mean_load = [&](const StragglerRank& r) { return out.uses_gpu_compute ? r.compute_ms : r.step_ms; };
  size_t slowest = 0;
  for (size_t i = 1; i < out.ranks.size(); ++i)
    if (mean_load(out.ranks[i]) > mean_load(out.ranks[slowest])) slowest = i;
  std::vector<double> others;
  for (size_t i = 0; i < out.ranks.size(); ++i)
    if (i != slowest) others.push_back(mean_load(out.ranks[i]));
  const double pct = over_pct(mean_load(out.ranks[slowest]), median_of(others));
  if (pct >= kStragglerThresholdPct) {
    out.straggler = int(slowest);
    out.straggler_vs_median_pct = pct;
  }
  return out;
}

std::string straggler_sentence(const StragglerAnalysis& s) {
  if (s.straggler < 0) return {};
  const StragglerRank& r = s.ranks[size_t(s.straggler)];
  if (s.matched_calls == 0)
    return fmt::format("{} is a straggler: its {} is {:.1f}% above the other ranks' median ({:.3f} ms per step), "
                       "slowest in {} of {} steps (no collective call could be matched across the ranks, so this "
                       "compares their work, not their arrival).",
                       r.host, s.uses_gpu_compute ? "GPU compute" : "step time", s.straggler_vs_median_pct,
                       s.uses_gpu_compute ? r.compute_ms : r.step_ms, r.slowest_in, s.steps.size());
  std::string text = fmt::format(
      "{} arrives {:.3f} ms late at {} per step on average, after the other ranks' median (it reached {} of {} "
      "matched calls last; measured {})",
      r.host, r.late_ms, s.late_at, r.latest_in, r.calls_matched,
      s.lateness_from == "arrival" ? "from the calls' start times" : "from the other ranks' extra time in the calls, as their clocks differ");
  if (!s.causes.empty()) {
    text += fmt::format("; before the calls, {} spent more than the others' median in ", r.host);
    for (size_t i = 0; i < s.causes.size(); ++i)
      text += fmt::format("{}{} (+{:.3f} ms per step)", i == 0 ? "" : i + 1 == s.causes.size() ? " and " : ", ",
                          s.causes[i].name, s.causes[i].excess_ms);
  }
  text += ".";
  if (!s.note.empty()) text += " " + std::string(1, char(std::toupper(s.note[0]))) + s.note.substr(1) + ".";
  return text;
}

nlohmann::json to_json(const StragglerAnalysis& s) {
  using nlohmann::json;
  json ranks = json::array(), steps = json::array(), causes = json::array();
  for (const StragglerCause& c : s.causes) causes.push_back({{"name", c.name}, {"excess_ms", c.excess_ms}});
  for (size_t i = 0; i < s.ranks.size(); ++i) {
    const StragglerRank& r = s.ranks[i];
    ranks.push_back({{"host", r.host},
                     {"file", r.file},
                     {"steps", r.steps},
                     {"step_ms", r.step_ms},
                     {"compute_ms", r.compute_ms},
                     {"communication_ms", r.communication_ms},
                     {"wait_ms", r.wait_ms},
                     {"slowest_in_steps", r.slowest_in},
                     {"calls_matched", r.calls_matched},
                     {"late_ms", r.late_ms},
                     {"latest_in_calls", r.latest_in},
                     {"straggler", int(i) == s.straggler},
                     {"causes", int(i) == s.straggler ? causes : json::array()}});
  }
  for (const StragglerStep& step : s.steps) {
    json per_rank = json::array();
    for (const RankStepTimes& t : step.ranks)
      per_rank.push_back({{"host", s.ranks[t.rank].host},
                          {"step_ms", ms(t.step_ps)},
                          {"compute_ms", ms(t.compute_ps)},
                          {"communication_ms", ms(t.communication_ps)},
                          {"wait_ms", ms(t.wait_ps)}});
    steps.push_back({{"step_num", step.step_num},
                     {"slowest", s.ranks[step.ranks[step.slowest].rank].host},
                     {"slowest_vs_median_pct", step.slowest_vs_median_pct},
                     {"latest", step.latest >= 0 ? json(s.ranks[size_t(step.latest)].host) : json(nullptr)},
                     {"latest_late_ms", step.latest_late_ms},
                     {"ranks", per_rank}});
  }
  return {{"compute_is", s.uses_gpu_compute ? "gpu_compute" : "step_time"},
          {"threshold_pct", kStragglerThresholdPct},
          {"min_late_ms", kMinLateMs},
          {"window", "the analysed steps that two or more ranks ran; times per rank, per step or per call"},
          {"matched_calls", s.matched_calls},
          {"lateness_from", s.lateness_from},
          {"straggler", s.straggler >= 0 ? json(s.ranks[size_t(s.straggler)].host) : json(nullptr)},
          {"straggler_vs_median_pct", s.straggler_vs_median_pct},
          {"late_ms", s.straggler >= 0 ? s.ranks[size_t(s.straggler)].late_ms : 0.0},
          {"late_at", s.late_at},
          {"late_per_step_ms", s.late_per_step_ms},
          {"causes", causes},
          {"explained_ms", s.explained_ms},
          {"note", s.note},
          {"mismatches", s.mismatches},
          {"summary", straggler_sentence(s)},
          {"ranks", ranks},
          {"steps", steps}};
}

std::string to_csv(const StragglerAnalysis& s) {
  std::string out;
  append_csv_row(out, {"step_num", "host", "step_ms", "compute_ms", "communication_ms", "wait_ms", "slowest"});
  for (const StragglerStep& step : s.steps)
    for (size_t i = 0; i < step.ranks.size(); ++i) {
      const RankStepTimes& t = step.ranks[i];
      append_csv_row(out, {std::to_string(step.step_num), s.ranks[t.rank].host, fmt::format("{:.6f}", ms(t.step_ps)),
                           fmt::format("{:.6f}", ms(t.compute_ps)), fmt::format("{:.6f}", ms(t.communication_ps)),
                           fmt::format("{:.6f}", ms(t.wait_ps)), i == step.slowest ? "1" : "0"});
    }
  return out;
}

}  // namespace mlprof::analysis
