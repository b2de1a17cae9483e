#include "analysis/host_summary.h"

#include "analysis/step_breakdown.h"

namespace mlprof::analysis {

std::unique_ptr<ProfileSummary> summarize_profile(const model::Profile& p) {
  auto out = std::make_unique<ProfileSummary>();
  out->empty = model::is_empty_profile(p);
  out->origin_ns = p.origin_ns;
  out->bounds = model::time_bounds(p);
  out->hosts = p.hosts.size();
  out->events = p.num_events();
  const StepAnalysis steps = analyze_steps(p);
  out->whole_profile = steps.whole_profile;
  out->pod = pod_hosts(p, steps, !steps.whole_profile);
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
    pod_.push_back(std::move(host));
  }
  return true;
}

bool load_run_summary(const model::LoadRequest& request, RunSummary* summary, model::LoadError* error) {
  model::SummaryRequest summaries;
  summaries.summarize = [](const model::Profile& part) -> std::unique_ptr<model::PartSummary> {
    return summarize_profile(part);
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
