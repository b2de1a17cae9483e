#include "analysis/host_labels.h"
#include "analysis/host_summary.h"

#include "analysis/device_precision.h"
#include "analysis/op_stats_ranks.h"
#include "analysis/step_breakdown.h"

#include <algorithm>
#include <chrono>
#include <future>

namespace mlprof::analysis {

std::unique_ptr<ProfileSummary> summarize_profile(const model::Profile& p, unsigned parts) {
  auto out = std::make_unique<ProfileSummary>();
  out->empty = model::is_empty_profile(p);
  out->origin_ns = p.origin_ns;
  out->hosts = p.hosts.size();
  out->events = p.num_events();
  out->parts = parts;
  // The op totals, the kernel stats, the input pipelines and the memory pressure do not need the
  // steps: they are made on a second core while the steps are grouped (or after them, when no
  // thread starts). The op totals come first: the critical path's what-ifs name the top op.
  OverviewParts& o = out->overview;
  // The devices' work joined to its launches once, for the op totals and the steps alike.
  const auto launches =
      parts & (kOpTotals | kPodHosts | kOverview | kStepOpTimes) ? std::make_shared<const LaunchJoin>(p) : nullptr;
  std::promise<void> totals_ready;
  const std::shared_future<void> totals_done = totals_ready.get_future().share();
  auto apart = std::async(std::launch::async | std::launch::deferred, [&p, &o, &out, parts, &totals_ready, &launches] {
    try {
      if (parts & kOpTotals) {
        out->op_totals = op_stats_totals(p, true, std::nullopt, launches.get());
        for (uint32_t h = 0; h < p.hosts.size(); ++h) {
          out->op_ranks.push_back(op_stats_rank_row(
              p.hosts.size() == 1 ? out->op_totals : op_stats_totals(p, true, h, launches.get())));
          out->op_ranks.back().file = p.strings.view(p.hosts[h].name);
          out->op_rank_recorded.push_back(p.hosts[h].rank);
        }
      }
      totals_ready.set_value();
    } catch (...) {
      totals_ready.set_exception(std::current_exception());
      throw;
    }
    if (parts & kKernelRows) out->kernels = compute_kernel_stats(p);
    if (parts & (kPodHosts | kOverview)) out->chips = compute_device_chips(p);
    if (parts & kOverview) {
      if (std::vector<InputPipeline> pipelines = find_input_pipelines(p); !pipelines.empty()) {
        const InputPipeline& pl = pipelines.front();
        o.slowest_pipeline = SlowestPipeline{pl.max_ps, pl.bottleneck >= 0,
                                             pl.bottleneck >= 0 ? pl.nodes[size_t(pl.bottleneck)].long_name : "",
                                             pl.suggestion};
      }
      o.memory = memory_pressure(p, &out->memories);
    }
  });
  // What scans every event while the work apart starts on the other core.
  out->bounds = model::time_bounds(p);
  out->tensorflow_op_names = has_tensorflow_op_names(p);
  // The critical path (the overview's largest part) on a core of its own: its graph needs only
  // the steps' grouping and windows; its what-ifs, asked once the graph is built, the op totals.
  // It runs beside the rest only when the work apart runs on a thread, which will give it the
  // totals. Where the steps are marked it starts once they are grouped, beside their breakdowns
  // (with a copy of their grouping); a profile without steps has its pseudo step's window only
  // after them.
  std::optional<StepAnalysis> steps;
  std::optional<StepAnalysis> grouped;  // the steps as the critical path reads them, before they are analysed
  std::future<std::optional<Bottleneck>> bottleneck;
  auto start_bottleneck = [&](const StepAnalysis& path_steps) {
    const bool apart_on_thread = apart.wait_for(std::chrono::seconds(0)) != std::future_status::deferred;
    bottleneck = std::async(apart_on_thread ? std::launch::async | std::launch::deferred : std::launch::deferred,
                            [&, path_steps = &path_steps] {
      return find_bottleneck(p, *path_steps, [&] {
        totals_done.get();
        // The recommendations' changes, this host's top op among them (the page names the run's,
        // which is this one's when the run is one host).
        std::string top_op;
        if (parts & kOpTotals) {
          bool on_device = false;
          const std::vector<TopOp> top = top_ops_of(finish_op_stats(out->op_totals), &on_device);
          if (!top.empty()) top_op = top.front().name;
        }
        return recommendation_what_ifs(top_op, o.environment.is_tpu());
      });
    });
  };
  if (parts & kOverview) o.environment = compute_run_environment(p);
  if (parts & (kPodHosts | kOverview | kStepOpTimes)) {
    StepGrouping grouping = group_steps(p, launches);
    if ((parts & kOverview) && !grouping.selected.empty()) {
      grouped.emplace();
      grouped->grouping = grouping;
      grouped->steps = selected_steps(grouped->grouping);
      start_bottleneck(*grouped);
    }
    steps = analyze_steps(p, std::move(grouping));
    out->whole_profile = steps->whole_profile;
  }
  if ((parts & kOverview) && !grouped) start_bottleneck(*steps);
  if (parts & kPodHosts) out->pod = pod_hosts(p, *steps, true);
  if (parts & kStepOpTimes) out->step_op_times = op_time_by_step(p, *steps);
  if (parts & kOverview) {
    o.whole_profile = steps->whole_profile;
    o.step_marker = steps->grouping.root_kind;
    o.steps_found = steps->grouping.steps.size();
    o.steps_left_out = steps->grouping.left_out;
    o.fetch_outside = fetch_outside_steps(p, *steps);
    o.profiler_control_ps = steps->profiler_control_ps;
    for (const model::Host& host : p.hosts) {
      o.hosts.emplace_back(p.strings.view(host.name));
      o.host_ranks.push_back(host.rank);
    }
    o.steps = steps->steps;
    int64_t bits16 = 0, bits32 = 0;
    for (const StepBreakdown& s : steps->steps)
      bits16 += s.ps(Activity::kDeviceCompute16), bits32 += s.ps(Activity::kDeviceCompute32);
    if (bits16 + bits32 == 0) add_host_op_precision(p, *steps, &o.host_bits16_ps, &o.host_bits32_ps);
    o.device_precision_ps = device_compute_precision_ps(p, *steps);
    out->findings_in_steps = timeline_findings(p, steps->grouping, true);
    if (steps->whole_profile) out->findings_in_profile = timeline_findings(p, steps->grouping, false);
  }
  // Without a second thread the work apart runs now, as it always ran before the critical path.
  if (apart.wait_for(std::chrono::seconds(0)) == std::future_status::deferred) apart.get();
  totals_done.get();
  if (parts & kOverview) o.bottleneck = bottleneck.get();
  if (apart.valid()) apart.get();
  return out;
}

bool RunSummary::add(std::unique_ptr<ProfileSummary> part, std::string* error) {
  // As append_profile: into nothing the part comes whole, with its own origin.
  int64_t shift_ps = 0;
  if (empty_) origin_ns_ = part->origin_ns;
  else if (!model::shift_to_origin(part->origin_ns, origin_ns_, part->bounds, &shift_ps, error)) return false;
  empty_ = empty_ && part->empty;
  hosts_ += part->hosts;
  events_ += part->events;
  whole_profile_ = whole_profile_ && part->whole_profile;
  for (PodHost& host : part->pod) {
    for (PodWorkerStep& step : host.steps) step.begin_ps += shift_ps;
    for (CollectiveCall& call : host.rank.calls) call.start_ps += shift_ps;  // arrivals compare across files
    pod_.push_back(std::move(host));
  }
  // A rank's label holds only where no other file records the same rank: labelled again over
  // all the files so far, as host_labels labels one profile's hosts.
  if (!part->pod.empty()) {
    std::vector<int64_t> ranks;
    std::vector<std::string> files;
    for (const PodHost& host : pod_) ranks.push_back(host.recorded_rank), files.push_back(host.file);
    const std::vector<std::string> labels = host_labels(ranks, files);
    for (size_t h = 0; h < pod_.size(); ++h) pod_[h].host = pod_[h].rank.host = labels[h];
  }

  OverviewParts& o = part->overview;
  parts_ |= part->parts;
  if (part->hosts > 0) ++files_with_hosts_;
  if (part->hosts > 1) several_hosts_in_a_file_ = true;
  if (!tensorflow_op_names_) tensorflow_op_names_ = part->tensorflow_op_names;
  if (*tensorflow_op_names_ != part->tensorflow_op_names) ops_disagree_ = true;
  if (overview_.step_marker.empty()) overview_.step_marker = o.step_marker;
  overview_.steps_found += o.steps_found;
  overview_.steps_left_out += o.steps_left_out;
  overview_.fetch_outside += o.fetch_outside;
  overview_.profiler_control_ps += o.profiler_control_ps;
  // A file without steps bounds its pseudo step: the run's only when no file has steps.
  std::optional<Bottleneck>& bottleneck = part->whole_profile ? pseudo_bottleneck_ : overview_.bottleneck;
  if (o.bottleneck && (!bottleneck || o.bottleneck->step_ms > bottleneck->step_ms)) bottleneck = o.bottleneck;
  const uint32_t host0 = uint32_t(overview_.hosts.size());
  // A file without steps has one pseudo step over its whole profile: read whole, the run has it
  // only when no file has steps, so it waits for the run's verdict.
  std::vector<StepBreakdown>& steps = part->whole_profile ? pseudo_steps_ : overview_.steps;
  for (StepBreakdown& step : o.steps) {
    step.host += host0;
    step.begin_ps += shift_ps;
    steps.push_back(step);
  }
  for (std::string& host : o.hosts) overview_.hosts.push_back(std::move(host));
  for (int64_t rank : o.host_ranks) overview_.host_ranks.push_back(rank);
  host_bits_.push_back({part->whole_profile, o.host_bits16_ps, o.host_bits32_ps, o.device_precision_ps});
  join_run_environment(std::move(o.environment), &overview_.environment);
  op_totals_.add(part->op_totals);
  for (OpStatsRankRow& row : part->op_ranks) op_ranks_.push_back(std::move(row));
  for (int64_t rank : part->op_rank_recorded) op_rank_recorded_.push_back(rank);
  (part->whole_profile ? step_op_times_in_profiles_ : step_op_times_in_steps_).add(part->step_op_times);
  kernels_.add(part->kernels);
  join_device_chips(std::move(part->chips), &chips_);
  if (o.slowest_pipeline && (!overview_.slowest_pipeline || o.slowest_pipeline->max_ps > overview_.slowest_pipeline->max_ps))
    overview_.slowest_pipeline = std::move(o.slowest_pipeline);
  memories_ += part->memories > 0;  // hosts with memories (one host a file)
  for (MemoryPressure& m : o.memory) {
    m.peak_time_ps += shift_ps;
    memory_.emplace_back(overview_.hosts.empty() ? "" : overview_.hosts.back(), std::move(m));
  }
  for (auto& f : part->findings_in_steps) findings_in_steps_.push_back(std::move(f));
  // (Read only when no file has steps: then every file has them.)
  for (auto& f : part->findings_in_profile) findings_in_profile_.push_back(std::move(f));
  return true;
}

bool RunSummary::exact() const {
  // The overview's memories and findings are named among a file's own hosts, and a run without
  // steps is one step across its hosts; the op tables need the hosts to agree on what an op is.
  if ((parts_ & kOverview) && (several_hosts_in_a_file_ || (whole_profile_ && files_with_hosts_ > 1))) return false;
  return !((parts_ & (kOverview | kOpTotals | kStepOpTimes)) && ops_disagree_);
}

std::vector<OpStatsRankRow> RunSummary::op_stats_ranks() const {
  if (op_ranks_.size() < 2) return {};
  std::vector<std::string> files;
  for (const OpStatsRankRow& row : op_ranks_) files.push_back(row.file);
  const std::vector<std::string> labels = host_labels(op_rank_recorded_, files);
  std::vector<OpStatsRankRow> rows = op_ranks_;
  for (size_t h = 0; h < rows.size(); ++h) rows[h].host = labels[h];
  return rows;
}

OverviewParts RunSummary::overview_parts() const {
  OverviewParts o = overview_;
  o.whole_profile = whole_profile_;
  if (whole_profile_) o.steps = pseudo_steps_, o.bottleneck = pseudo_bottleneck_;
  // The host ops' precision counts in the run's steps: a file without steps adds none when
  // others have some.
  for (const HostBits& b : host_bits_)
    if (whole_profile_ || !b.whole_profile) {
      o.host_bits16_ps += b.bits16_ps, o.host_bits32_ps += b.bits32_ps;
      for (size_t i = 0; i < kNumPrecisions; ++i) o.device_precision_ps[i] += b.device_precision_ps[i];
    }
  o.top_ops = top_ops_of(finish_op_stats(op_totals_), &o.top_ops_on_device);
  // Memories are named after their host once several hosts have some (memory_profile.h), and
  // come largest peak first, then by name, as compute_memory_peaks orders them.
  for (const auto& [host, m] : memory_) {
    o.memory.push_back(m);
    if (memories_ > 1) o.memory.back().memory_id = host + "/" + m.memory_id;
  }
  std::stable_sort(o.memory.begin(), o.memory.end(), [](const MemoryPressure& a, const MemoryPressure& b) {
    return a.peak_heap_bytes != b.peak_heap_bytes ? a.peak_heap_bytes > b.peak_heap_bytes : a.memory_id < b.memory_id;
  });
  const bool steps = !whole_profile_;
  std::optional<StragglerAnalysis> stragglers;
  if (steps && pod_.size() > 1) {
    std::vector<RankSteps> ranks;
    for (const PodHost& host : pod_) ranks.push_back(host.rank);
    stragglers = compute_stragglers(ranks);
  }
  o.timeline = timeline_advice(steps ? findings_in_steps_ : findings_in_profile_, steps,
                               stragglers ? &*stragglers : nullptr);
  return o;
}

StepOpTimes RunSummary::step_op_times() const {
  return whole_profile_ ? step_op_times_in_profiles_ : step_op_times_in_steps_;
}

bool load_run_summary(const model::LoadRequest& request, unsigned parts, RunSummary* summary, model::LoadError* error) {
  model::SummaryRequest summaries;
  summaries.summarize = [parts](const model::Profile& part, size_t files) -> std::unique_ptr<model::PartSummary> {
    const bool ranks = files > 1 || part.hosts.size() > 1;
    return summarize_profile(part, (parts & kPodHostsOfRanks) && ranks ? parts | kPodHosts : parts);
  };
  summaries.take = [summary](std::unique_ptr<model::PartSummary> part, std::string* problem) {
    return summary->add(std::unique_ptr<ProfileSummary>(static_cast<ProfileSummary*>(part.release())), problem);
  };
  std::string run;
  const bool ok = model::load_summaries(request, summaries, &run, error);
  summary->set_run(std::move(run));
  return ok;
}

}  // namespace mlprof::analysis
