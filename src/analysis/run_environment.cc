#include "analysis/run_environment.h"

#include <set>
#include <utility>

#include "analysis/device_work.h"
#include "analysis/hlo_ops.h"
#include "format/xspace_schema.h"
#include "model/string_contains.h"

namespace mlprof::analysis {

const GpuTerms& gpu_terms(GpuVendor vendor) {
  static constexpr GpuTerms kNvidia{"streaming multiprocessors", "compute capability", "Tensor Cores", "cuda",
                                    "CUDA graphs"};
  // HIP reports the GFX version (gfx90a: 9.0) where CUDA has the compute capability.
  static constexpr GpuTerms kAmd{"compute units", "GFX version", "matrix cores", "hip", "HIP graphs"};
  // MTIA: no terms of a public runtime or graph API are claimed; the advice stays generic.
  static constexpr GpuTerms kMtia{"processing elements", "generation", "matrix engines", "mtia",
                                  "a graph the device replays"};
  switch (vendor) {
    case GpuVendor::kAmd: return kAmd;
    case GpuVendor::kMtia: return kMtia;
    case GpuVendor::kNvidia: break;
  }
  return kNvidia;
}

GpuVendor plane_gpu_vendor(const model::Profile& p, uint32_t plane) {
  if (plane_device_family(p, plane) == DeviceFamily::kMtia) return GpuVendor::kMtia;
  const model::StringId key = p.strings.find(format::xspace::kStatDeviceVendor);
  if (key == model::kNoString) return GpuVendor::kNvidia;
  const auto vendor = p.plane_stat(plane, key);
  return vendor && p.string_of(*vendor) == format::xspace::kDeviceVendorAmd ? GpuVendor::kAmd : GpuVendor::kNvidia;
}

GpuVendor host_gpu_vendor(const model::Profile& p, uint32_t host) {
  const model::Host& h = p.hosts[host];
  for (uint32_t plane = h.first_plane; plane < h.first_plane + h.num_planes; ++plane)
    if (p.planes[plane].kind == model::PlaneKind::kDevice) return plane_gpu_vendor(p, plane);
  return GpuVendor::kNvidia;
}

Framework detect_framework(const model::Profile& p) {
  bool tensorflow = false, jax = false, aten = false, python = false, torch_steps = false, host_events = false;
  for (const model::EventName& n : p.names) {
    const std::string_view name = p.strings.view(n.name);
    if (name.starts_with("PjitFunction") || name.starts_with("pjit") || name.starts_with("PjRt") ||
        name.starts_with("jax.") || model::contains(name, "jax/") || model::contains(name, "jax_"))
      jax = true;
    else if (name == "SessionRun" || name == "FunctionRun" || name.starts_with("Iterator::") ||
             name.starts_with("EagerExecute") || name.starts_with("__inference_") || name.starts_with("tf_"))
      tensorflow = true;
    else if (name.starts_with("aten::") || name.starts_with("autograd::")) aten = true;
    else if (name.starts_with(format::xspace::kProfilerStepPrefix) || name.starts_with("enumerate(DataLoader)") ||
             name.starts_with("Optimizer.step#"))
      torch_steps = true;
    if (model::contains(name, ".py(") || name.starts_with("<built-in method") || name.starts_with("torch/") ||
        name.starts_with("nn.Module:"))
      python = true;
    host_events = true;
  }
  // mlprof's own capture (the SDK, its LibTorch integration, its Python package) writes a Task
  // Environment plane; PyTorch's profiler, which users run from Python, writes none. So aten
  // ops or device work without that plane come from PyTorch's profiler (Kineto).
  bool mlprof_capture = false, device_streams = false;
  for (const model::Plane& plane : p.planes) mlprof_capture |= plane.kind == model::PlaneKind::kTaskEnvironment;
  for (const model::Line& line : p.lines) device_streams |= line.kind == model::LineKind::kStream;
  // PyTorch first: a Python process may have imported JAX or TensorFlow besides (their
  // modules' paths show in its Python stacks), while aten ops run only under PyTorch.
  if (aten || torch_steps)
    return python || torch_steps || !mlprof_capture ? Framework::kPyTorchPython : Framework::kLibTorch;
  if (jax) return Framework::kJax;
  if (tensorflow) return Framework::kTensorFlow;
  if (python || (device_streams && !mlprof_capture)) return Framework::kPyTorchPython;
  return host_events ? Framework::kCpp : Framework::kUnknown;
}

std::string_view framework_key(Framework f) {
  switch (f) {
    case Framework::kTensorFlow: return "tensorflow";
    case Framework::kJax: return "jax";
    case Framework::kPyTorchPython: return "pytorch_python";
    case Framework::kLibTorch: return "libtorch";
    case Framework::kCpp: return "cpp";
    default: return "unknown";
  }
}

std::string_view framework_label(Framework f) {
  switch (f) {
    case Framework::kTensorFlow: return "TensorFlow";
    case Framework::kJax: return "JAX";
    case Framework::kPyTorchPython: return "PyTorch (Python)";
    case Framework::kLibTorch: return "LibTorch (C++)";
    case Framework::kCpp: return "C++";
    default: return "unknown";
  }
}

bool is_python_framework(Framework f) {
  return f == Framework::kTensorFlow || f == Framework::kJax || f == Framework::kPyTorchPython;
}

std::string annotation_call(Framework f, std::string_view name) {
  const std::string quoted = "(\"" + std::string(name) + "\")";
  switch (f) {
    case Framework::kPyTorchPython: return "torch.profiler.record_function" + quoted;
    case Framework::kJax: return "jax.profiler.TraceAnnotation" + quoted;
    case Framework::kTensorFlow: return "tf.profiler.experimental.Trace" + quoted;
    case Framework::kLibTorch: return "RECORD_FUNCTION" + quoted.substr(0, quoted.size() - 1) + ", {})";
    default: return "mlprof::Trace" + quoted;
  }
}

RunEnvironment compute_run_environment(const model::Profile& p) {
  RunEnvironment env;
  env.framework = detect_framework(p);
  // A host is called what the run's file calls it (what `--host` and the UI's host picker
  // take), with the machine the capture recorded after it when that differs.
  std::vector<std::string> names;
  for (const auto& h : p.hosts) {
    names.emplace_back(p.strings.view(h.name));
    const std::string_view machine = p.strings.view(h.hostname);
    env.hosts.push_back(machine.empty() || machine == names.back() ? names.back()
                                                                    : names.back() + " (" + std::string(machine) + ")");
  }
  for (uint32_t i = 0; i < p.planes.size(); ++i) {
    const auto& plane = p.planes[i];
    if (plane.kind == model::PlaneKind::kHostThreads) {
      for (uint32_t l = plane.first_line; l < plane.first_line + plane.num_lines; ++l)
        env.host_thread_count += p.lines[l].num_events > 0;
      continue;
    }
    if (plane.kind != model::PlaneKind::kDevice) continue;
    if (env.device_type.empty()) env.device_type = std::string(p.strings.view(plane.device_type));
    ++env.device_count;
    DeviceInfo d;
    d.host = names.empty() ? "" : names[plane.host];
    d.name = std::string(p.strings.view(plane.name));
    d.vendor = plane_gpu_vendor(p, i);
    if (auto v = p.plane_stat(i, model::kDeviceTypeString)) d.model = std::string(p.string_of(*v));
    if (auto v = p.plane_stat(i, model::kCoreCount)) d.core_count = v->as_int();
    if (auto v = p.plane_stat(i, model::kComputeCapMajor)) d.compute_cap_major = v->as_int();
    if (auto v = p.plane_stat(i, model::kComputeCapMinor)) d.compute_cap_minor = v->as_int();
    if (auto v = p.plane_stat(i, model::kMemorySize)) d.memory_gib = v->as_double() / double(1ull << 30);
    d.global_chip_id = core_place(p, i).global_chip_id;
    const DevicePeaks peaks = device_peaks(p, i);
    d.peak_tflops = peaks.tflops;
    d.peak_hbm_gbps = peaks.hbm_gbps;
    env.devices.push_back(d);
  }
  if (env.device_type.empty()) env.device_type = "CPU";
  return env;
}

std::string tpu_generation(std::string_view type) {
  if (!type.starts_with("TPU v")) return "";
  type.remove_prefix(4);
  size_t end = 1;
  while (end < type.size() && type[end] != ' ') ++end;
  std::string generation(type.substr(0, end));
  if (generation.size() < 2 || generation[1] < '0' || generation[1] > '9') return "";
  if (type.substr(end) == " Lite") generation += 'e';
  return generation;
}

size_t RunEnvironment::chip_count() const {
  std::set<std::pair<std::string, int64_t>> chips;
  size_t unplaced = 0;
  for (const DeviceInfo& d : devices) {
    if (d.global_chip_id < 0) ++unplaced;
    else chips.emplace(d.host, d.global_chip_id);
  }
  return chips.size() + unplaced;
}

void join_run_environment(RunEnvironment&& part, RunEnvironment* into) {
  // The device type is the first device's of the run.
  if (into->device_count == 0) into->device_type = std::move(part.device_type);
  if (into->framework == Framework::kUnknown || into->framework == Framework::kCpp) into->framework = part.framework;
  into->device_count += part.device_count;
  into->host_thread_count += part.host_thread_count;
  for (auto& h : part.hosts) into->hosts.push_back(std::move(h));
  for (auto& d : part.devices) into->devices.push_back(std::move(d));
}

nlohmann::json to_json(const RunEnvironment& env) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : env.devices)
    devices.push_back({{"host", d.host},
                       {"name", d.name},
                       {"model", d.model},
                       {"core_count", d.core_count},
                       {"compute_capability", std::to_string(d.compute_cap_major) + "." + std::to_string(d.compute_cap_minor)},
                       {"memory_gib", d.memory_gib},
                       {"global_chip_id", d.global_chip_id},
                       {"peak_teraflops_per_second", d.peak_tflops},
                       {"peak_hbm_gigabytes_per_second", d.peak_hbm_gbps}});
  nlohmann::json out = {{"host_count", env.hosts.size()},
                        {"hosts", env.hosts},
                        {"device_type", env.device_type},
                        {"device_core_count", env.device_count},
                        {"host_thread_count", env.host_thread_count},
                        {"framework", framework_key(env.framework)},
                        {"chip_count", env.chip_count()},
                        {"devices", devices}};
  if (!env.devices.empty() && env.is_tpu()) out["tpu_generation"] = tpu_generation(env.devices.front().model);
  if (env.device_type == "GPU") out["gpu_vendor"] = env.gpu_vendor() == GpuVendor::kAmd ? "AMD" : "NVIDIA";
  return out;
}

}  // namespace mlprof::analysis
