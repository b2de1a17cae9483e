// kernel_stats (docs/ARCHITECTURE.md §5.6): one row per GPU kernel launch configuration, that is per
// (kernel name, grid, block, registers, static and dynamic shared memory, op), with its count
// and durations, whether the kernel ran on Tensor Cores and whether its op could have.
//
// Kernels are the events of devices' stream lines that are not copies or memsets. Their launch
// configuration comes from kernel_details (both "regs:N static_shared:N dynamic_shared:N ..."
// and the older "regs:N shm:N ..."); their op from tf_op, else TensorFlow's "level 0"
// annotation, else the host op around the call that launched them (by correlation_id).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <tuple>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/device_work.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct KernelLaunchConfig {
  std::array<int64_t, 3> grid{0, 0, 0};
  std::array<int64_t, 3> block{0, 0, 0};
  int64_t registers_per_thread = 0;
  int64_t static_shared_bytes = 0;   // the older "shm" (static and dynamic together) lands here
  int64_t dynamic_shared_bytes = 0;
  double occupancy_pct = -1;         // -1: not given
};

// Reads a kernel_details string; unknown keys are skipped, missing ones stay 0.
KernelLaunchConfig parse_kernel_details(std::string_view details);

// Tensor Core kernels, by the names NVIDIA's libraries give them (h884, s1688, xmma, ...):
// runs_on_matrix_units (device_work.h) for an NVIDIA GPU.
bool kernel_uses_tensor_cores(std::string_view kernel_name);
// Ops whose work Tensor Cores can do: convolutions, matrix products (matmul, mm, addmm, bmm,
// linear, einsum, batch matmul) and recurrent cells (LSTM, GRU, RNN).
bool op_is_tensor_core_eligible(std::string_view op_name);

struct KernelStatsRow {
  std::string kernel_name;
  std::string op_name;  // empty when no op is known
  KernelLaunchConfig config;
  uint64_t occurrences = 0;
  int64_t total_ps = 0, min_ps = 0, max_ps = 0;
  bool uses_tensor_cores = false;  // ran on its device's matrix units (matrix_unit says which)
  bool op_tensor_core_eligible = false;
  DeviceWork work = DeviceWork::kCompute;  // compute or a collective (device_work.h)
  Precision precision = Precision::kUnknown;
  MatrixUnit matrix_unit = MatrixUnit::kNone;

  int64_t avg_ps() const { return occurrences > 0 ? total_ps / int64_t(occurrences) : 0; }
};

struct KernelStatsTable {
  std::vector<KernelStatsRow> rows;  // by total time, longest first
  uint64_t launches = 0;             // kernels run
  int64_t total_ps = 0;              // their time
  int64_t tensor_core_ps = 0;        // in kernels that used Tensor Cores
  int64_t eligible_ps = 0;           // in kernels of ops that could use them
  int64_t eligible_without_tensor_cores_ps = 0;  // ...but whose kernels did not
  std::array<int64_t, kNumPrecisions> precision_ps{};  // compute kernels' time by precision
  MatrixUnit matrix_unit = MatrixUnit::kNone;          // the units some kernel ran on
  size_t hosts = 0;                                    // the hosts the kernels were gathered from
};

KernelStatsTable compute_kernel_stats(const model::Profile& profile);
// The table of rows gathered one way or another: ranked, with its totals.
KernelStatsTable table_of(std::vector<KernelStatsRow> rows);

// The tables of hosts read apart (host_summary.h), joined by kernel, op and launch
// configuration as if computed on them all.
class KernelStatsJoin {
 public:
  void add(const KernelStatsTable& part);
  KernelStatsTable finish() const;

 private:
  using Key = std::tuple<std::string, std::string, std::array<int64_t, 3>, std::array<int64_t, 3>, int64_t, int64_t,
                         int64_t>;
  std::map<Key, KernelStatsRow> rows_;
  size_t hosts_ = 0;
};

nlohmann::json to_json(const KernelStatsTable& table);
std::string to_csv(const KernelStatsTable& table);  // one row per kernel configuration

}  // namespace mlprof::analysis
