// hlo_stats: one row per HLO op (per program), ranked by self time: occurrences, total and
// self time, FLOP rate, memory bandwidth, operational intensity, what bounds it, its category
// and source line. XProf's tool of the same name (xprof/convert/op_stats_to_hlo_stats.cc,
// ConvertOpStatsToHloStats; the rates of xprof/convert/op_metrics_to_record.h,
// GigaFlopsPerSecondPerCore, GibiBytesPerSecondPerCore and SetRooflineMetrics).
//
// Rows sum the op over the chosen devices (every device unless `device` names one); rates
// divide sums by sums, so they are per device, as XProf's "per core" rates are.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/hlo_ops.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct HloStatsRow {
  std::string program, category, name, expression, provenance, source, source_stack;
  uint64_t occurrences = 0;
  int64_t total_ps = 0, self_ps = 0;
  int64_t rate_ps = 0;        // the time the rates are over (hlo_ops.h, rate_time_ps)
  std::string async_partner;  // the other half of an async pair
  double flops = 0, model_flops = 0, bytes_accessed = 0, hbm_bytes = 0;
  double self_pct = 0, cumulative_self_pct = 0;  // of all ops' self time
  // Derived, 0 where a stat is missing:
  double gflops_per_s = 0;        // flops / rate time (XProf: measured_flop_rate, over total time)
  double model_gflops_per_s = 0;  // model_flops / rate time
  double memory_gib_per_s = 0;    // bytes_accessed / rate time (XProf: measured_memory_bw, GiB/s)
  double hbm_gib_per_s = 0;       // HBM bytes / rate time (XProf: hbm_bw)
  double operational_intensity = 0;  // flops / bytes_accessed (FLOP/byte)
  std::string bound_by;              // "Compute", "HBM" or "Unknown"
};

struct HloStats {
  std::string devices;  // which devices the rows sum: "/device:TPU:0", or "all 4 devices (summed over 4)"
  uint32_t num_devices = 0;
  std::string device_type;
  double peak_tflops = 0, peak_hbm_gbps = 0;
  int64_t busy_ps = 0;               // the devices' busy time: the rows' self times add up to it
  std::vector<HloStatsRow> rows;     // by self time, largest first
  std::vector<std::string> notes;    // one line per missing stat
};

// `device`: one device's ordinal (the n of /device:TPU:n); nullopt for all devices.
HloStats compute_hlo_stats(const HloOps& ops, std::optional<uint32_t> device = std::nullopt);
HloStats compute_hlo_stats(const model::Profile& profile);

nlohmann::json to_json(const HloStats& stats);
std::string to_csv(const HloStats& stats);

}  // namespace mlprof::analysis
