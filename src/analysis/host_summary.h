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
#include <optional>
#include <string>
#include <vector>

#include "analysis/framework_op_stats.h"
#include "analysis/kernel_stats.h"
#include "analysis/overview_page.h"
#include "analysis/pod_viewer.h"
#include "analysis/gpu_timeline/timeline_rules.h"
#include "model/load_profile.h"
#include "model/profile.h"
#include "model/profile_merge.h"

namespace mlprof::analysis {

// The parts of a file's summary, one bit each: a tool names those it reads (tool_registry.h's
// SummaryForm), and only those are computed, so that a host's working set stays small.
inline constexpr unsigned kPodHosts = 1;   // the pod viewer's steps and GPU times per host
inline constexpr unsigned kOverview = 2;   // the overview's parts (with the timeline findings)
inline constexpr unsigned kOpTotals = 4;   // the op stats' totals
inline constexpr unsigned kKernelRows = 8; // the kernel table's rows
inline constexpr unsigned kStepOpTimes = 16;  // the ops' self time in each analysed step (diff)
// kPodHosts only for a run of several hosts: the overview compares ranks (its stragglers), which a
// run of one host has not (load_run_summary).
inline constexpr unsigned kPodHostsOfRanks = 32;
inline constexpr unsigned kAllParts = kPodHosts | kOverview | kOpTotals | kKernelRows;

// What is kept of one file's hosts.
struct ProfileSummary final : model::PartSummary {
  unsigned parts = 0;  // those computed
  bool empty = true;  // the profile held nothing (model::is_empty_profile)
  int64_t origin_ns = 0;
  model::TimeBounds bounds;
  size_t hosts = 0, events = 0;
  bool whole_profile = false;  // no host of it has analysed steps
  std::vector<PodHost> pod;    // per host: what the pod viewer reads
  // What the overview reads (overview_page.h's OverviewParts, of these hosts alone).
  OverviewParts overview;  // but the top ops: from the run's op stats
  OpStatsTotals op_totals;  // with the idle time
  // Per host, with the op totals: its row of the op stats' rank table (op_stats_ranks.h), with
  // its file, and its recorded rank to label it among the run's.
  std::vector<OpStatsRankRow> op_ranks;
  std::vector<int64_t> op_rank_recorded;
  StepOpTimes step_op_times;
  KernelStatsTable kernels;
  DeviceChips chips;  // with the pod viewer's or the overview's parts
  bool tensorflow_op_names = false;  // has_tensorflow_op_names: decides which host events are ops
  size_t memories = 0;               // memories (allocators) in all
  // The timeline rules' findings over the analysed steps; and, when it has none, over its whole
  // profile (what a run without steps reads).
  std::vector<TimelineFindings> findings_in_steps, findings_in_profile;
};

// Summarises a profile holding one file's hosts: the `parts` asked.
std::unique_ptr<ProfileSummary> summarize_profile(const model::Profile& part, unsigned parts = kAllParts);

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

  // Whether the joined summaries give what the whole run gives for the tools that read them.
  // They do not when the run's hosts must be analysed together: for the overview, no host has
  // steps (the whole run is then one step, across the hosts) or a file holds several hosts; for
  // it and the op stats, the hosts disagree on what an op is (TensorFlow's names on some). The
  // caller then reads the run whole.
  bool exact() const;
  OverviewParts overview_parts() const;
  const OpStatsTotals& op_totals() const { return op_totals_; }
  // One row per host of the run, labelled among all its files; empty for fewer than two.
  std::vector<OpStatsRankRow> op_stats_ranks() const;
  StepOpTimes step_op_times() const;
  KernelStatsTable kernel_stats() const { return kernels_.finish(); }
  const DeviceChips& chips() const { return chips_; }

 private:
  std::string run_;
  bool empty_ = true;
  int64_t origin_ns_ = 0;
  size_t hosts_ = 0, events_ = 0;
  bool whole_profile_ = true;
  std::vector<PodHost> pod_;
  // The overview's parts, joined; the host precision and the timeline findings of each file
  // wait for the run's verdict on steps.
  unsigned parts_ = 0;
  bool several_hosts_in_a_file_ = false, ops_disagree_ = false;
  size_t files_with_hosts_ = 0;
  std::optional<bool> tensorflow_op_names_;
  OverviewParts overview_;  // with the steps of the files that have steps
  std::vector<StepBreakdown> pseudo_steps_;  // of the files without: the run's when no file has steps
  std::optional<Bottleneck> pseudo_bottleneck_;  // the same for the bottleneck
  OpStatsTotals op_totals_;
  std::vector<OpStatsRankRow> op_ranks_;
  std::vector<int64_t> op_rank_recorded_;
  KernelStatsJoin kernels_;
  DeviceChips chips_;
  struct HostBits {
    bool whole_profile;
    int64_t bits16_ps, bits32_ps;
    std::array<int64_t, kNumPrecisions> device_precision_ps;  // the device's compute by precision
  };
  std::vector<HostBits> host_bits_;
  // Like the host precision: a file without steps adds its ops only when no file has steps.
  StepOpTimes step_op_times_in_steps_, step_op_times_in_profiles_;
  size_t memories_ = 0;
  std::vector<std::pair<std::string, MemoryPressure>> memory_;  // with its host's name
  std::vector<TimelineFindings> findings_in_steps_, findings_in_profile_;
};

// Reads a run as summaries (model::load_summaries): what `mlprof report` does for a tool the
// registry can compute from them.
bool load_run_summary(const model::LoadRequest& request, unsigned parts, RunSummary* summary, model::LoadError* error);

}  // namespace mlprof::analysis
