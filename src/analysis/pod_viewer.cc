#include "analysis/host_labels.h"
#include "analysis/pod_viewer.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/category_labels.h"
#include "analysis/csv.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

void summarize(PodWorker& w) {
  std::vector<double> totals;
  std::array<double, kNumCategories> sum_ms{};
  for (const PodWorkerStep& s : w.steps) {
    totals.push_back(ms(s.total_ps));
    for (size_t c = 0; c < kNumCategories; ++c) sum_ms[c] += ms(s.breakdown_ps[c]);
  }
  w.step_time_ms = series_stats(totals);
  if (w.steps.empty()) return;
  for (size_t c = 0; c < kNumCategories; ++c) {
    w.breakdown_ms[c] = sum_ms[c] / double(w.steps.size());
    w.breakdown_pct[c] = w.step_time_ms.avg > 0 ? 100 * w.breakdown_ms[c] / w.step_time_ms.avg : 0;
  }
  w.bottleneck = Category(std::max_element(w.breakdown_ms.begin(), w.breakdown_ms.end()) - w.breakdown_ms.begin());
}

nlohmann::json categories_json(const std::array<double, kNumCategories>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t c = 0; c < kNumCategories; ++c) j[std::string(kCategoryKeys[c])] = values[c];
  return j;
}

nlohmann::json categories_json(const std::array<int64_t, kNumCategories>& ps) {
  std::array<double, kNumCategories> values{};
  for (size_t c = 0; c < kNumCategories; ++c) values[c] = ms(ps[c]);
  return categories_json(values);
}

}  // namespace

std::vector<PodHost> pod_hosts(const model::Profile& p, const StepAnalysis& sa, bool with_gpu_times) {
  std::vector<PodHost> hosts(p.hosts.size());
  const std::vector<std::string> labels = host_labels(p);
  for (size_t h = 0; h < hosts.size(); ++h) {
    hosts[h].host = labels[h];
    hosts[h].file = std::string(p.strings.view(p.hosts[h].name));
    hosts[h].recorded_rank = p.hosts[h].rank;
  }
  if (!sa.whole_profile)
    for (const StepBreakdown& s : sa.steps) {
      if (s.host >= hosts.size()) continue;
      hosts[s.host].steps.push_back({s.step_num, s.begin_ps, s.duration_ps, s.category_ps()});
    }
  if (with_gpu_times) {
    std::vector<RankSteps> ranks =
        rank_steps(p, sa.grouping, collect_gpu_activity(p, sa.grouping, GpuScope::kAnalysedSteps));
    for (size_t h = 0; h < hosts.size(); ++h) hosts[h].rank = std::move(ranks[h]);
  }
  return hosts;
}

PodViewer compute_pod_viewer(const model::Profile& p, const StepAnalysis& sa) {
  return compute_pod_viewer(pod_hosts(p, sa, !sa.whole_profile && p.hosts.size() > 1), sa.whole_profile);
}

PodViewer compute_pod_viewer(std::vector<PodHost> hosts, bool whole_profile) {
  PodViewer pod;
  pod.whole_profile = whole_profile;
  for (PodHost& host : hosts) {
    PodWorker& worker = pod.workers.emplace_back();
    worker.host = host.host;
    worker.file = host.file;
    worker.steps = std::move(host.steps);
  }
  std::map<int64_t, PodStep> by_step;
  for (size_t w = 0; w < pod.workers.size(); ++w) {
    PodWorker& worker = pod.workers[w];
    std::sort(worker.steps.begin(), worker.steps.end(),
              [](const PodWorkerStep& a, const PodWorkerStep& b) { return a.begin_ps < b.begin_ps; });
    summarize(worker);
    for (size_t i = 0; i < worker.steps.size(); ++i) {
      PodStep& step = by_step[worker.steps[i].step_num];
      step.step_num = worker.steps[i].step_num;
      step.shares.push_back({w, i});
    }
  }
  for (auto& [num, step] : by_step) {
    const auto total = [&](const PodStep::Share& s) { return pod.workers[s.worker].steps[s.step].total_ps; };
    step.slowest_worker = std::max_element(step.shares.begin(), step.shares.end(), [&](const auto& a, const auto& b) {
                            return total(a) < total(b);
                          })->worker;
    pod.steps.push_back(std::move(step));
  }

  int fastest = -1;
  for (size_t w = 0; w < pod.workers.size(); ++w) {
    if (pod.workers[w].steps.empty()) continue;
    const double avg = pod.workers[w].step_time_ms.avg;
    if (pod.slowest_worker < 0 || avg > pod.workers[size_t(pod.slowest_worker)].step_time_ms.avg) pod.slowest_worker = int(w);
    if (fastest < 0 || avg < pod.workers[size_t(fastest)].step_time_ms.avg) fastest = int(w);
  }
  if (fastest >= 0 && pod.workers[size_t(fastest)].step_time_ms.avg > 0) {
    pod.slowest_vs_fastest_pct =
        100 * (pod.workers[size_t(pod.slowest_worker)].step_time_ms.avg / pod.workers[size_t(fastest)].step_time_ms.avg - 1);
  }
  if (!whole_profile && hosts.size() > 1) {
    std::vector<RankSteps> ranks;
    for (PodHost& host : hosts) ranks.push_back(std::move(host.rank));
    pod.stragglers = compute_stragglers(ranks);
  }
  return pod;
}

PodViewer compute_pod_viewer(const model::Profile& p) { return compute_pod_viewer(p, analyze_steps(p)); }

nlohmann::json to_json(const PodViewer& pod) {
  nlohmann::json workers = nlohmann::json::array();
  for (size_t w = 0; w < pod.workers.size(); ++w) {
    const PodWorker& worker = pod.workers[w];
    const auto& t = worker.step_time_ms;
    const bool has_steps = !worker.steps.empty();
    workers.push_back({
        {"host", worker.host},
        {"file", worker.file},
        {"step_count", worker.steps.size()},
        {"step_time_ms", {{"avg", t.avg}, {"stddev", t.stddev}, {"min", t.min}, {"max", t.max}}},
        {"breakdown_ms", categories_json(worker.breakdown_ms)},
        {"breakdown_pct", categories_json(worker.breakdown_pct)},
        {"bottleneck", has_steps ? std::string(kCategoryKeys[size_t(worker.bottleneck)]) : ""},
        {"bottleneck_pct", has_steps ? worker.breakdown_pct[size_t(worker.bottleneck)] : 0.0},
        {"is_slowest", int(w) == pod.slowest_worker},
    });
  }
  nlohmann::json steps = nlohmann::json::array();
  for (const PodStep& step : pod.steps) {
    nlohmann::json per_worker = nlohmann::json::array();
    for (const PodStep::Share& share : step.shares) {
      const PodWorkerStep& s = pod.workers[share.worker].steps[share.step];
      per_worker.push_back({{"host", pod.workers[share.worker].host}, {"start_ms", ms(s.begin_ps)},
                            {"total_ms", ms(s.total_ps)}, {"breakdown_ms", categories_json(s.breakdown_ps)}});
    }
    steps.push_back({{"step", step.step_num}, {"slowest_host", pod.workers[step.slowest_worker].host},
                     {"workers", per_worker}});
  }
  nlohmann::json slowest = nullptr;
  if (pod.slowest_worker >= 0) {
    const PodWorker& w = pod.workers[size_t(pod.slowest_worker)];
    slowest = {{"host", w.host}, {"avg_step_time_ms", w.step_time_ms.avg},
               {"slower_than_fastest_pct", pod.slowest_vs_fastest_pct},
               {"bottleneck", std::string(kCategoryKeys[size_t(w.bottleneck)])}};
  }
  nlohmann::json categories = nlohmann::json::array();
  for (auto k : kCategoryKeys) categories.push_back(std::string(k));
  return {{"workers", workers},
          {"steps", steps},
          {"slowest_worker", slowest},
          {"categories", categories},
          {"category_labels", category_labels_json(pod.chips.on_tpu())},
          {"worker_count", pod.workers.size()},
          {"window", pod.whole_profile ? "the whole profile of each worker, as one step"
                                       : "a step (average over each worker's analysed steps), per worker"},
          {"whole_profile_as_one_step", pod.whole_profile},
          {"chips", pod.chips.chips.empty() ? nlohmann::json(nullptr) : to_json(pod.chips)},
          {"stragglers", to_json(pod.stragglers)}};
}

std::string to_csv(const PodViewer& pod) {
  // A profile with chips (TPUs, XLA's GPUs) has a row per chip, as the page shows them.
  if (!pod.chips.chips.empty()) return to_csv(pod.chips);
  std::string out;
  std::vector<std::string> header = {"host", "step", "start_ms", "total_ms"};
  for (auto k : kCategoryKeys) header.push_back(std::string(k) + "_ms");
  append_csv_row(out, header);
  auto number = [](int64_t ps) { return csv_number(ms(ps)); };
  for (const PodWorker& w : pod.workers) {
    for (const PodWorkerStep& s : w.steps) {
      std::vector<std::string> row = {w.host, std::to_string(s.step_num), number(s.begin_ps), number(s.total_ps)};
      for (int64_t v : s.breakdown_ps) row.push_back(number(v));
      append_csv_row(out, row);
    }
  }
  return out;
}

}  // namespace mlprof::analysis
