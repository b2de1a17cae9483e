// The collectives tool (docs/ARCHITECTURE.md §5.9): for each rank, collective kind and process
// group, how many calls, how long they took, how many bytes they moved and at what algorithm and
// bus bandwidth, as NCCL's tests define them (PyTorch TensorBoard's "Distributed" view, Nsight's
// NCCL recipes). Over the whole profile.
//
// A call is timed where it waits: on a rank with collective kernels, by those kernels (their
// sizes from their own arguments, else from the op that launched them); on a rank without, by
// its collective backend's host ops (gloo:*, nccl:*, c10d::*), else by the ops that record a
// collective's arguments (record_param_comms). Sizes come from PyTorch's `In msg nelems`, `Out
// msg nelems` and `dtype` (model/op_arg_names.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce", "send",
// "recv", "send_recv", "gather", "scatter", "barrier", from a recorded collective name
// ("allreduce", "_allgather_base") or a kernel's or op's ("ncclKernel_AllReduce_RING_LL_Sum_float",
// "gloo:all_reduce"); empty when it names none of them.
std::string collective_kind(std::string_view name);
// NCCL's bus bandwidth over algorithm bandwidth for `kind` among `ranks` ranks: 2(n-1)/n for
// all_reduce, (n-1)/n for all_gather, reduce_scatter, all_to_all, gather and scatter, 1 for
// broadcast, reduce, send and recv; negative when it has none (barrier, unknown kinds, n < 1).
double bus_bandwidth_factor(std::string_view kind, int64_t ranks);
// Bytes of one element of a PyTorch dtype as Kineto writes it ("Float", "BFloat16", "Long"),
// any case; 0 when unknown.
int64_t dtype_bytes(std::string_view dtype);

struct CollectiveRow {
  std::string host;             // the rank (host_labels.h)
  std::string file;             // its file's name without extension
  std::string kind;             // collective_kind
  std::string process_group;    // "Process Group Name", or "" when not recorded
  std::string group_ranks;      // "Process Group Ranks": "[0, 1]"
  int64_t group_size = -1;      // "Group size"; -1 when not recorded
  bool on_device = false;       // timed by kernels, else by host ops
  uint64_t count = 0;
  int64_t total_ps = 0;
  // The calls whose message size is known: their bytes (NCCL tests' size: the larger of the
  // input and output message, so the whole gathered or scattered buffer) and their time.
  uint64_t sized_count = 0;
  int64_t bytes = 0;
  int64_t sized_ps = 0;

  double mean_ms() const;
  double mean_bytes() const;     // per sized call; 0 when none
  double algbw_gbps() const;     // bytes / time, 1e9 bytes per second; negative when unknown
  double busbw_gbps() const;     // algbw × bus_bandwidth_factor; negative when unknown
};

// How much of a rank's time in collectives it spent waiting for the others: its wait in a step
// is its time in collectives less the least of any rank that step (stragglers.h), over the
// analysed steps that two or more ranks ran.
struct CollectiveRankWait {
  std::string host;  // host_labels.h
  std::string file;
  size_t steps = 0;
  double collectives_ms = 0, wait_ms = 0;  // means per step
  double wait_share_pct() const { return collectives_ms > 0 ? 100.0 * wait_ms / collectives_ms : 0; }
};

struct CollectivesTable {
  // By kind, process group, then rank in the run's order.
  std::vector<CollectiveRow> rows;
  // One per rank with steps, in the run's order; empty for a run of one rank.
  std::vector<CollectiveRankWait> ranks;
};

CollectivesTable compute_collectives(const model::Profile& profile);
struct StragglerAnalysis;
// The ranks' waits, from the stragglers' per-step times.
std::vector<CollectiveRankWait> collective_waits(const StragglerAnalysis& stragglers);

nlohmann::json to_json(const CollectivesTable& table);
std::string to_csv(const CollectivesTable& table);

}  // namespace mlprof::analysis
