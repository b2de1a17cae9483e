// The run environment of the overview page: hosts, device type and count, cores.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct DeviceInfo {
  std::string host;
  std::string name;  // "/device:GPU:0"
  int64_t core_count = 0;  // streaming multiprocessors (GPU) when the file says
  int64_t compute_cap_major = 0, compute_cap_minor = 0;
  double memory_gib = 0;
};

struct RunEnvironment {
  std::vector<std::string> hosts;
  std::string device_type;  // "GPU", "TPU", or "CPU" when there is no device
  size_t device_count = 0;  // devices (cores) across hosts
  std::vector<DeviceInfo> devices;
  size_t host_thread_count = 0;
};

RunEnvironment compute_run_environment(const model::Profile& profile);
// Appends the environment of hosts read apart (host_summary.h), as if computed on them all.
void join_run_environment(RunEnvironment&& part, RunEnvironment* into);
nlohmann::json to_json(const RunEnvironment& env);

}  // namespace mlprof::analysis
