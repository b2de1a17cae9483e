// The collective calls of each rank (host) in its analysed steps, in order, with what the rank
// did before each: what the stragglers analysis matches across ranks (docs/ARCHITECTURE.md
// §5.9). A call is a collective kernel on the rank's GPUs (NCCL or RCCL: it runs until every
// rank has joined), or, on a rank without such kernels, a host op of a collective backend
// (the process group's gloo:* or nccl:* records, else c10d::* ops), which waits the same way. In both, every rank leaves
// the call together, so the rank that arrives last spends the least time in it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/step_grouping.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct GpuActivity;

// The name of the time on the calling thread that no op accounts for.
inline constexpr std::string_view kUntracedTime = "(time no op recorded)";

struct CollectiveCall {
  std::string name;       // "gloo:all_reduce", "ncclKernel_AllToAll_RING_LL_Sum_int8_t"
  std::string group;      // its process group ("Process Group Name"); empty when not recorded
  int64_t step_num = 0;
  uint32_t index = 0;        // its place among the calls of the same name in the step
  uint32_t group_index = 0;  // its place among those of them in its process group
  int64_t start_ps = 0;   // since the profile's origin
  int64_t duration_ps = 0;
  bool on_device = false;
  model::EventIndex event = model::kNone;  // the kernel or the host op
  // What the calling thread did since the previous call ended (or the step began): self time
  // by op name (kUntracedTime for time no op covers), the largest first, at most kMaxBefore.
  std::vector<std::pair<std::string, int64_t>> before;
  int64_t end_ps() const { return start_ps + duration_ps; }
};
inline constexpr size_t kMaxBefore = 24;

// One collective call as the ranks made it: calls matched across ranks by step number, process
// group, name and their order in the step within the group. A call of another group is another
// collective, made by other ranks (or named as a mismatch: collective_mismatch.h).
struct MatchedCall {
  std::vector<std::pair<size_t, const CollectiveCall*>> ranks;  // (index of the rank, its call)
  // The ranks leave the call together (within 50 us or a tenth of the call): their clocks agree,
  // so the starts say who arrived when.
  bool clocks_agree = false;
};

// The calls made by two or more of the ranks (`calls[r]`: rank r's), by step, group, name and order.
std::vector<MatchedCall> match_collective_calls(const std::vector<const std::vector<CollectiveCall>*>& calls);

// Whether a host op is a call of a collective backend.
bool is_host_collective_name(std::string_view name);

// The calls of host `host`, by start.
std::vector<CollectiveCall> collect_collective_calls(const model::Profile& profile, const StepGrouping& grouping,
                                                     const GpuActivity& steps_activity, uint32_t host);

}  // namespace mlprof::analysis
