#include "analysis/critical_path/rank_waits.h"

#include <algorithm>

#include "analysis/gpu_timeline/collective_calls.h"
#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {
namespace {

// Whether two hosts' analysed steps overlap in time: ranks of one job do; copies of one trace
// read side by side, or runs of different days, do not (and then nothing is matched).
bool ranks_run_together(const model::Profile& p, const StepAnalysis& steps) {
  std::vector<std::pair<int64_t, int64_t>> span(p.hosts.size(), {INT64_MAX, INT64_MIN});
  for (const StepBreakdown& s : steps.steps) {
    auto& [begin, end] = span[s.host];
    begin = std::min(begin, s.begin_ps);
    end = std::max(end, s.begin_ps + s.duration_ps);
  }
  for (size_t a = 0; a < span.size(); ++a)
    for (size_t b = a + 1; b < span.size(); ++b)
      if (span[a].first < span[b].second && span[b].first < span[a].second) return true;
  return false;
}

int64_t median(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

RankWaits find_rank_waits(const model::Profile& p, const StepAnalysis& steps) {
  RankWaits out;
  out.clock_offset_ps.assign(p.hosts.size(), 0);
  if (p.hosts.size() < 2 || !ranks_run_together(p, steps)) return out;
  const GpuActivity activity = collect_gpu_activity(p, steps.grouping, GpuScope::kAnalysedSteps);
  std::vector<std::vector<CollectiveCall>> calls(p.hosts.size());
  std::vector<const std::vector<CollectiveCall>*> calls_of;
  for (uint32_t h = 0; h < p.hosts.size(); ++h) {
    calls[h] = collect_collective_calls(p, steps.grouping, activity, h);
    calls_of.push_back(&calls[h]);
  }
  std::vector<MatchedCall> matched = match_collective_calls(calls_of);
  std::vector<std::vector<int64_t>> early_by(p.hosts.size());  // per host: the calls' end less its own
  for (const MatchedCall& call : matched) {
    std::vector<int64_t> ends;
    for (const auto& [rank, c] : call.ranks) ends.push_back(c->end_ps());
    const int64_t end = median(ends);
    for (const auto& [rank, c] : call.ranks) early_by[rank].push_back(end - c->end_ps());
  }
  for (size_t h = 0; h < p.hosts.size(); ++h) out.clock_offset_ps[h] = median(early_by[h]);
  // On that clock, the calls the ranks leave together (as match_collective_calls says of the
  // clocks as written); where they do not, the trace does not show who waited for whom.
  std::erase_if(matched, [&](const MatchedCall& call) {
    std::vector<int64_t> ends, durations;
    for (const auto& [rank, c] : call.ranks)
      ends.push_back(c->end_ps() + out.clock_offset_ps[rank]), durations.push_back(c->duration_ps);
    const int64_t spread = *std::max_element(ends.begin(), ends.end()) - *std::min_element(ends.begin(), ends.end());
    return double(spread) > std::max(50e6, 0.1 * double(median(durations)));
  });
  for (const MatchedCall& call : matched) {
    auto arrival = [&](const auto& rc) { return rc.second->start_ps + out.clock_offset_ps[rc.first]; };
    const auto latest = std::max_element(call.ranks.begin(), call.ranks.end(),
                                         [&](const auto& a, const auto& b) { return arrival(a) < arrival(b); });
    for (const auto& rc : call.ranks)
      if (arrival(rc) < arrival(*latest) && rc.second->event != model::kNone && latest->second->event != model::kNone)
        out.waits.push_back({rc.second->event, latest->second->event, uint32_t(rc.first)});
  }
  return out;
}

}  // namespace mlprof::analysis
