// op_profile: XLA's device time by category, then by op, with each node's FLOP and HBM
// bandwidth utilisation and whether it is compute- or memory-bound; for every chip (or GPU)
// and for the whole program. XProf's tool of the same name (xprof/convert/op_profile_builder.cc,
// OpProfileBuilder and PopulateOpMetricsNode; xprof/convert/op_stats_to_op_profile.cc), with
// two differences on purpose: utilisations are the node's own (XProf multiplies them by the
// node's share of time for its UI; both cap them at 1), and a chip is a view of its own rather
// than its ops merged with the other chips' (the "all chips" view sums them and says so).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/hlo_ops.h"
#include "model/profile.h"

namespace mlprof::analysis {

// A node of the tree: the root, a program, a category or an op.
struct OpProfileNode {
  std::string name;
  bool is_op = false;
  // Ops only (from HloOp).
  std::string category, expression, provenance, source;
  uint64_t occurrences = 0;
  int64_t time_ps = 0, self_ps = 0;
  int64_t rate_ps = 0;   // the time its rates are over (hlo_ops.h, rate_time_ps)
  std::string async_partner;  // the other half of an async pair
  double flops = 0, hbm_bytes = 0;
  double flop_util = 0, hbm_util = 0;  // of the device's peaks, in [0, 1]; 0 when unknown
  std::vector<OpProfileNode> children;  // by time, longest first
};

// One device, or all of them together.
struct OpProfileView {
  std::string device;     // "/device:TPU:0", or "all 4 chips"
  uint32_t devices = 1;   // how many devices its figures are summed over
  std::string device_type;
  double peak_tflops = 0, peak_hbm_gbps = 0;  // one device's
  int64_t busy_ps = 0;    // summed over its devices: the root's time
  OpProfileNode by_category;  // root -> category -> op
  OpProfileNode by_program;   // root -> program -> category -> op
};

struct OpProfile {
  std::string device_type;           // common to the devices, "" when mixed or unknown
  std::vector<OpProfileView> views;  // all devices first (when there are several), then one per device
  std::vector<std::string> notes;    // one line per missing stat, and what the tool does otherwise
};

// The op's time attributed to a node is its self time (XProf: UpdateNodeMetrics), so that
// nodes' times add up to their parent's and the root's to the device busy time.
OpProfile compute_op_profile(const HloOps& ops);
OpProfile compute_op_profile(const model::Profile& profile);

nlohmann::json to_json(const OpProfile& profile);
std::string to_csv(const OpProfile& profile);  // one row per (view, program, category, op)

}  // namespace mlprof::analysis
