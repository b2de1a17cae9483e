// One row per accelerator chip (a TPU chip, a GPU of a host) for the pod viewer and the
// overview: each chip's own figures, never summed over chips. Made from the XLA ops the chip
// ran (hlo_ops.h) and its plane's "XLA Modules" line, whose runs stand for steps where the host
// marks none: the runs of the chip's most-run module are its steps.
// Kept apart from the per-rank rows of GPU jobs (pod_viewer.h): a chip is no rank.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct ChipRow {
  std::string host;
  std::string device;          // its first core's plane, "/device:TPU:0"
  std::string model;           // `device_type_string` ("TPU v6 Lite"), else the plane's type
  int64_t global_chip_id = -1; // `core_details`; -1: not in the file
  uint32_t cores = 0;          // planes of the chip (TensorCores: two on a v4 or v5p megacore chip)
  std::string core_devices;    // their planes, "/device:TPU:0, /device:TPU:1"
  // XLA module runs: the chip's steps where the host marks none.
  uint64_t module_runs = 0;
  int64_t module_time_ps = 0;  // the runs' time, summed
  std::string main_module;     // the module run most often, "jit_train_step(123...)"
  uint64_t main_module_runs = 0;
  int64_t main_module_time_ps = 0;
  // The time any XLA op ran on any of its cores (XProf's union of the cores' duty cycles).
  int64_t busy_ps = 0;
  // The time XLA ops ran, summed over its cores (busy_ps on a chip of one core), split by what
  // the ops do: the three parts sum to core_busy_ps.
  int64_t core_busy_ps = 0;
  int64_t compute_ps = 0;        // fusions, convolutions, matrix products...
  int64_t collective_ps = 0;     // all-reduce, all-gather, reduce-scatter, all-to-all, permutes, send/recv
  int64_t async_copy_ps = 0;     // the halves of async copies (copy-start/copy-done: host offloading)
  double flop_util_pct = 0;      // flops / (busy x the chip's peak: its cores' together), hlo_ops.h
  double hbm_util_pct = 0;       // HBM bytes / (busy x its cores' peak HBM bandwidth)
  double peak_tflops = 0, peak_hbm_gbps = 0;
};

struct DeviceChips {
  std::vector<ChipRow> chips;  // by host, then chip id (else plane order)
  int busiest = -1;            // the chip with the most busy time; -1 without chips
  int least_busy = -1;
  // What an older writer's file lacks, one line each naming the stat or line and what it takes
  // away ("The file has no `core_details` stat: ...").
  std::vector<std::string> missing;
  bool on_tpu() const { return !chips.empty() && chips.front().model.starts_with("TPU"); }
};

DeviceChips compute_device_chips(const model::Profile& profile);
// Appends the chips of hosts read apart (host_summary.h), as if computed on them all.
void join_device_chips(DeviceChips&& part, DeviceChips* into);

nlohmann::json to_json(const DeviceChips& chips);
// One row per chip, with the columns of the JSON's `chips` rows: the CSV of the overview and the
// pod viewer for a profile with chips.
std::string to_csv(const DeviceChips& chips);

// TPU advice in a TPU's words: where async copies (copy-start/copy-done) take most of every
// chip's busy time, the chips wait on host offloading. Empty where they do not.
std::string host_offload_advice(const DeviceChips& chips);

}  // namespace mlprof::analysis
