#include "analysis/stragglers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/csv.h"
#include "analysis/gpu_activity.h"
#include "analysis/gpu_work_order.h"
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

}  // namespace

StragglerAnalysis compute_stragglers(const model::Profile& profile, const StepGrouping& grouping) {
  return compute_stragglers(profile, grouping, collect_gpu_activity(profile, grouping, GpuScope::kAnalysedSteps));
}

std::vector<RankSteps> rank_steps(const model::Profile& profile, const StepGrouping& grouping,
                                  const GpuActivity& gpu) {
  std::vector<RankSteps> out(profile.hosts.size());
  for (uint32_t h = 0; h < profile.hosts.size(); ++h) out[h].host = std::string(profile.strings.view(profile.hosts[h].name));
  for (uint32_t s : grouping.selected) {
    const Step& step = grouping.steps[s];
    out[step.host].steps.push_back({step.step_num, step.duration_ps(), 0, 0});
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
  for (const RankSteps& host : hosts) {
    out.uses_gpu_compute |= host.has_gpu_work;
    if (host.steps.empty()) continue;
    const size_t rank = out.ranks.size();
    out.ranks.push_back({host.host});
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
      if (i != step.slowest) {
        others.push_back(double(load(step.ranks[i])));
        step.others_wait_ps += step.ranks[i].wait_ps;
      }
    step.slowest_vs_median_pct = over_pct(double(load(step.ranks[step.slowest])), median_of(others));
    ++out.ranks[step.ranks[step.slowest].rank].slowest_in;
    out.steps.push_back(std::move(step));
  }
  for (StragglerRank& r : out.ranks) {
    if (r.steps == 0) continue;
    const double n = double(r.steps);
    r.step_ms /= n, r.compute_ms /= n, r.communication_ms /= n, r.wait_ms /= n;
  }

  if (out.ranks.size() < 2 || out.steps.empty()) return out;
  auto mean_load = [&](const StragglerRank& r) { return out.uses_gpu_compute ? r.compute_ms : r.step_ms; };
  size_t slowest = 0;
  for (size_t i = 1; i < out.ranks.size(); ++i)
    if (mean_load(out.ranks[i]) > mean_load(out.ranks[slowest])) slowest = i;
  std::vector<double> others;
  double others_wait = 0;
  for (size_t i = 0; i < out.ranks.size(); ++i)
    if (i != slowest) others.push_back(mean_load(out.ranks[i])), others_wait += out.ranks[i].wait_ms;
  const double pct = over_pct(mean_load(out.ranks[slowest]), median_of(others));
  if (pct >= kStragglerThresholdPct) {
    out.straggler = int(slowest);
    out.straggler_vs_median_pct = pct;
    out.others_wait_ms = others_wait;
  }
  return out;
}

nlohmann::json to_json(const StragglerAnalysis& s) {
  using nlohmann::json;
  json ranks = json::array(), steps = json::array();
  for (size_t i = 0; i < s.ranks.size(); ++i) {
    const StragglerRank& r = s.ranks[i];
    ranks.push_back({{"host", r.host},
                     {"steps", r.steps},
                     {"step_ms", r.step_ms},
                     {"compute_ms", r.compute_ms},
                     {"communication_ms", r.communication_ms},
                     {"wait_ms", r.wait_ms},
                     {"slowest_in_steps", r.slowest_in},
                     {"straggler", int(i) == s.straggler}});
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
                     {"others_wait_ms", ms(step.others_wait_ps)},
                     {"ranks", per_rank}});
  }
  return {{"compute_is", s.uses_gpu_compute ? "gpu_compute" : "step_time"},
          {"threshold_pct", kStragglerThresholdPct},
          {"straggler", s.straggler >= 0 ? json(s.ranks[size_t(s.straggler)].host) : json(nullptr)},
          {"straggler_vs_median_pct", s.straggler_vs_median_pct},
          {"others_wait_ms", s.others_wait_ms},
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
