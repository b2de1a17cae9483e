// Per-host summaries (docs/ARCHITECTURE.md §2): what the summary-level tools of the registry
// (tool_registry.h) read of a run's hosts, so that a run of many hosts is read one file at a
// time and each file's events dropped once summarised. A file's summary is made from a profile
// holding its hosts alone, by the same analysis code that runs on a whole run; joining the
// summaries in the run's order moves their times to the run's origin, as joining the profiles
// would (model/profile_merge.h). Each tool then computes from the joined summary what it
// computes from the whole run, byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/pod_viewer.h"
#include "model/load_profile.h"
#include "model/profile.h"
#include "model/profile_merge.h"

namespace mlprof::analysis {

// What is kept of one file's hosts.
struct ProfileSummary final : model::PartSummary {
  bool empty = true;  // the profile held nothing (model::is_empty_profile)
  int64_t origin_ns = 0;
  model::TimeBounds bounds;
  size_t hosts = 0, events = 0;
  bool whole_profile = false;  // no host of it has analysed steps
  std::vector<PodHost> pod;    // per host: what the pod viewer reads
};

// Summarises a profile holding one file's hosts.
std::unique_ptr<ProfileSummary> summarize_profile(const model::Profile& part);

// The summaries of a run's files, joined in the run's order.
class RunSummary {
 public:
  explicit RunSummary(std::string run = {}) : run_(std::move(run)) {}

  // Joins the next file's summary; false with append_profile's reason (and nothing joined)
  // when its times cannot be measured from the run's origin.
  bool add(std::unique_ptr<ProfileSummary> part, std::string* error);

  const std::string& run() const { return run_; }
  void set_run(std::string run) { run_ = std::move(run); }
  size_t hosts() const { return hosts_; }
  size_t events() const { return events_; }
  bool whole_profile() const { return whole_profile_; }
  const std::vector<PodHost>& pod() const { return pod_; }

 private:
  std::string run_;
  bool empty_ = true;
  int64_t origin_ns_ = 0;
  size_t hosts_ = 0, events_ = 0;
  bool whole_profile_ = true;
  std::vector<PodHost> pod_;
};

// Reads a run as summaries (model::load_summaries): what `mlprof report` does for a tool the
// registry can compute from them.
bool load_run_summary(const model::LoadRequest& request, RunSummary* summary, model::LoadError* error);

}  // namespace mlprof::analysis
