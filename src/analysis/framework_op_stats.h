// framework_op_stats (the seed's "TensorFlow stats", docs/ARCHITECTURE.md §5.3): per op, on the host and
// on devices, occurrences, total and self time and their shares, with pie data by op and type.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct FrameworkOpStatsOptions {
  bool include_idle = false;  // add an IDLE row per side (time no op covers)
};

struct OpStatsRow {
  bool on_device = false;
  std::string type;
  std::string name;
  uint64_t occurrences = 0;        // calls (on a device: calls that launched device work)
  uint64_t kernel_count = 0;       // device work items in total_ps (0 on the host); where a
                                   // device's op line gives the times, the items naming the op
  int64_t total_ps = 0;
  int64_t self_ps = 0;
  double self_pct = 0;             // of all self time on its side (host or device)
  double cumulative_self_pct = 0;  // in rank order on its side
};

struct PieSlice {
  std::string name;
  int64_t self_ps = 0;
  double pct = 0;
};

// One rank's ops at a glance (op_stats_ranks.h): its ops' self time on the host and on its
// devices, and the op it spent most time in (on the devices where it has device ops).
struct OpStatsRankRow {
  std::string host;  // host_labels.h
  std::string file;
  double host_self_ms = 0, device_self_ms = 0;
  std::string top_op;
  bool top_on_device = false;
  double top_self_ms = 0, top_self_pct = 0;  // its self time, and its share of its side's
};

struct FrameworkOpStats {
  // One row per rank of a run of several (op_stats_ranks.h), before the ops of all of them.
  std::vector<OpStatsRankRow> ranks;
  std::vector<OpStatsRow> rows;  // device ops then host ops, each by self time, largest first
  int64_t host_self_ps = 0;      // denominators of the percentages (idle included when asked)
  int64_t device_self_ps = 0;
  int64_t host_idle_ps = 0;
  int64_t device_idle_ps = 0;
  bool include_idle = false;
  size_t hosts = 0;  // the hosts the ops were gathered from
  std::vector<PieSlice> host_by_op, host_by_type, device_by_op, device_by_type;
};

FrameworkOpStats compute_framework_op_stats(const model::Profile& profile,
                                            const FrameworkOpStatsOptions& options = {});

// Totals by op before the shares are taken, with the idle time when counted: what
// compute_framework_op_stats finishes, and what hosts read apart add up to (host_summary.h).
struct OpStatsTotals {
  struct Op {
    uint64_t occurrences = 0, kernel_count = 0;
    int64_t total_ps = 0, self_ps = 0;
  };
  std::map<std::string, Op, std::less<>> host, device;
  int64_t host_idle_ps = 0, device_idle_ps = 0;  // per host and per device, summed
  size_t hosts = 0;                                // the hosts the totals add up
  void add(const OpStatsTotals& other);
};
// `count_idle`: also the idle time (FrameworkOpStatsOptions::include_idle); `only_host`: of
// that host alone; `launches`: the profile's join of launches, where one is made already.
OpStatsTotals op_stats_totals(const model::Profile& profile, bool count_idle,
                              std::optional<uint32_t> only_host = std::nullopt, const LaunchJoin* launches = nullptr);
FrameworkOpStats finish_op_stats(const OpStatsTotals& totals, const FrameworkOpStatsOptions& options = {});

// Each op's self time inside the analysed steps (§5.1), by step number: what `diff` compares
// per step. Op totals over the whole profile also hold time outside the steps (threads no step
// reaches, steps left out as partial), so dividing them by a step count gives no time per step.
// An op event of a step counts in the analysed step window that holds its start, as the
// step-time breakdown charges its time (§5.2); device work counts for the op that launched it
// (§5.3). In a profile without steps the pseudo step holds every op.
struct OpInSteps {
  uint64_t events = 0;  // host calls, or items of device work (or device op-line events)
  int64_t self_ps = 0;
};
struct StepOpTimes {
  using Ops = std::map<std::pair<bool, std::string>, OpInSteps>;  // by (on_device, name)
  std::map<int64_t, Ops> by_step;  // by step number; steps of several hosts add up
  void add(const StepOpTimes& other);
};
StepOpTimes op_time_by_step(const model::Profile& profile, const StepAnalysis& steps);

// Whether the profile's host ops are TensorFlow's "name:Type" ops (then only those, and tf.data
// iterators, count as ops on the host).
bool has_tensorflow_op_names(const model::Profile& profile);

nlohmann::json to_json(const FrameworkOpStats& stats);
std::string to_csv(const FrameworkOpStats& stats);  // one row per op

}  // namespace mlprof::analysis
