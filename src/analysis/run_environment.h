// The run environment of the overview page: hosts, device type and count, cores.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// Who made a GPU, as far as the profile tells (format/xspace_schema.h's device_vendor); a GPU
// the profile says nothing about is taken for NVIDIA's, which most are.
// Whose accelerator: the words of its advice (gpu_terms). Meta's MTIA is no GPU, but its work
// reaches mlprof as a GPU's does (kernels on streams, launched by runtime calls).
enum class GpuVendor : uint8_t { kNvidia, kAmd, kMtia };

// How advice and the run environment name a vendor's parts, so that a ROCm run reads in ROCm's
// words.
struct GpuTerms {
  std::string_view cores;          // what core_count counts
  std::string_view compute_level;  // what compute_cap_major.minor is
  std::string_view matrix_units;   // the units that run 16-bit matrix products
  std::string_view api;            // the runtime's prefix: cudaMemcpy, hipMemcpy
  std::string_view graphs;         // capturing a step to replay it with one launch
};
const GpuTerms& gpu_terms(GpuVendor vendor);

GpuVendor plane_gpu_vendor(const model::Profile& profile, uint32_t plane);
// The vendor of the host's first GPU.
GpuVendor host_gpu_vendor(const model::Profile& profile, uint32_t host);

// Who wrote the program, as far as the profile's names tell: advice and "how to get this data"
// texts speak its language (docs/ARCHITECTURE.md §5.11).
enum class Framework : uint8_t { kUnknown, kTensorFlow, kJax, kPyTorchPython, kLibTorch, kCpp };
Framework detect_framework(const model::Profile& profile);
std::string_view framework_key(Framework f);    // "tensorflow", "jax", "pytorch_python", "libtorch", "cpp", "unknown"
std::string_view framework_label(Framework f);  // "TensorFlow", "JAX", "PyTorch (Python)", ...
bool is_python_framework(Framework f);          // TensorFlow, JAX, PyTorch from Python
// How to name a region of the program in a trace, in the framework's words:
// "torch.profiler.record_function(\"...\")", "jax.profiler.TraceAnnotation(\"...\")", "mlprof::Trace(\"...\")".
std::string annotation_call(Framework f, std::string_view name);

struct DeviceInfo {
  std::string host;
  std::string name;  // "/device:GPU:0"
  std::string model;  // `device_type_string` ("TPU v6 Lite"), "" when the file does not say
  GpuVendor vendor = GpuVendor::kNvidia;
  int64_t core_count = 0;  // streaming multiprocessors or compute units (gpu_terms) when the file says
  int64_t compute_cap_major = 0, compute_cap_minor = 0;
  double memory_gib = 0;
  int64_t global_chip_id = -1;  // a TPU core's chip in the mesh (`core_details`); -1: not said
  double peak_tflops = 0, peak_hbm_gbps = 0;  // the plane's peaks; 0: not in the file
};

// A TPU's generation from its `device_type_string`: "TPU v6 Lite" is "v6e" (Google calls the
// Lite parts e), "TPU v5p" is "v5p", "TPU v4" is "v4"; "" for anything else.
std::string tpu_generation(std::string_view device_type_string);

struct RunEnvironment {
  std::vector<std::string> hosts;
  std::string device_type;  // "GPU", "TPU", or "CPU" when there is no device
  size_t device_count = 0;  // devices (cores) across hosts
  std::vector<DeviceInfo> devices;
  size_t host_thread_count = 0;
  Framework framework = Framework::kUnknown;

  // The run's GPU vendor: its first device's.
  GpuVendor gpu_vendor() const { return devices.empty() ? GpuVendor::kNvidia : devices.front().vendor; }
  bool is_gpu() const { return device_type == "GPU"; }
  bool is_tpu() const { return device_type == "TPU"; }
  // Chips: a TPU's planes are its cores, and cores sharing a host and a global chip id are one
  // chip; any other device plane is a chip of its own.
  size_t chip_count() const;
};

RunEnvironment compute_run_environment(const model::Profile& profile);
// Appends the environment of hosts read apart (host_summary.h), as if computed on them all.
void join_run_environment(RunEnvironment&& part, RunEnvironment* into);
nlohmann::json to_json(const RunEnvironment& env);

}  // namespace mlprof::analysis
