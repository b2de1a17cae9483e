#include "capture/cupti/cuda_driver.h"

#include <cuda.h>
#include <dlfcn.h>

#include <mutex>

namespace mlprof::capture::gpu {
namespace {

struct Driver {
  void* handle = nullptr;
  std::string error;
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetAttribute) attribute = nullptr;
  decltype(&::cuDeviceGetName) name = nullptr;
  decltype(&::cuDeviceTotalMem_v2) total_memory = nullptr;
  decltype(&::cuGetErrorName) error_name = nullptr;
};

const Driver& driver() {
  static Driver* d = [] {
    auto* d = new Driver;
    d->handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (d->handle == nullptr) {
      const char* e = dlerror();
      d->error = "this machine has no NVIDIA driver (" + std::string(e != nullptr ? e : "libcuda.so.1 not found") +
                 "), so there is no GPU to trace; on a GPU machine, install the NVIDIA driver";
      return d;
    }
    d->init = reinterpret_cast<decltype(d->init)>(dlsym(d->handle, "cuInit"));
    d->device_get = reinterpret_cast<decltype(d->device_get)>(dlsym(d->handle, "cuDeviceGet"));
    d->attribute = reinterpret_cast<decltype(d->attribute)>(dlsym(d->handle, "cuDeviceGetAttribute"));
    d->name = reinterpret_cast<decltype(d->name)>(dlsym(d->handle, "cuDeviceGetName"));
    d->total_memory = reinterpret_cast<decltype(d->total_memory)>(dlsym(d->handle, "cuDeviceTotalMem_v2"));
    d->error_name = reinterpret_cast<decltype(d->error_name)>(dlsym(d->handle, "cuGetErrorName"));
    return d;
  }();
  return *d;
}

}  // namespace

bool cuda_driver_present(std::string* why_not) {
  const Driver& d = driver();
  if (d.handle == nullptr) *why_not = d.error;
  return d.handle != nullptr;
}

std::string driver_start_problem() {
  const Driver& d = driver();
  if (d.handle == nullptr) return d.error;
  if (d.init == nullptr) return "libcuda.so.1 has no cuInit: it is not an NVIDIA driver";
  const CUresult r = d.init(0);
  if (r == CUDA_SUCCESS) return "";
  const char* name = nullptr;
  const std::string code = d.error_name != nullptr && d.error_name(r, &name) == CUDA_SUCCESS && name != nullptr
                               ? std::string(name)
                               : "CUresult " + std::to_string(int(r));
  const std::string what = "the CUDA driver does not start (cuInit returned " + code + ")";
  switch (r) {
    case CUDA_ERROR_STUB_LIBRARY:
      return what + ": the libcuda.so.1 found is the CUDA toolkit's stub, not a driver; install the NVIDIA driver "
                    "and keep the toolkit's stubs folder off LD_LIBRARY_PATH";
    case CUDA_ERROR_NO_DEVICE:
      return what + ": no GPU is visible to this process; check nvidia-smi, CUDA_VISIBLE_DEVICES, or the "
                    "container's GPU access";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return what + ": the driver and the CUDA libraries do not match; update the NVIDIA driver";
    default:
      return what;
  }
}

std::optional<DeviceProperties> device_properties_from_driver(uint32_t ordinal, NameTable* names) {
  const Driver& d = driver();
  if (d.handle == nullptr || d.init == nullptr || d.device_get == nullptr || d.attribute == nullptr) return std::nullopt;
  CUdevice device;
  // The program already initialised the driver when it ran work on the device.
  if (d.init(0) != CUDA_SUCCESS || d.device_get(&device, int(ordinal)) != CUDA_SUCCESS) return std::nullopt;
  auto get = [&](CUdevice_attribute attribute) -> uint32_t {
    int value = 0;
    return d.attribute(&value, attribute, device) == CUDA_SUCCESS && value > 0 ? uint32_t(value) : 0;
  };
  DeviceProperties p;
  p.id = ordinal;
  p.compute_capability_major = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  p.compute_capability_minor = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  p.multiprocessors = get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.core_clock_khz = get(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  p.threads_per_warp = get(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  if (p.threads_per_warp == 0) p.threads_per_warp = 32;
  p.max_warps_per_multiprocessor = get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / p.threads_per_warp;
  p.max_blocks_per_multiprocessor = get(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  p.max_shared_memory_per_multiprocessor = get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  p.max_registers_per_multiprocessor = get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  // Double data rate: two transfers per memory clock over the bus.
  p.memory_bandwidth_bytes_per_s = 2ull * get(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1000 *
                                   get(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8;
  size_t bytes = 0;
  if (d.total_memory != nullptr && d.total_memory(&bytes, device) == CUDA_SUCCESS) p.memory_bytes = bytes;
  char name[256] = {};
  if (d.name != nullptr && d.name(name, sizeof name - 1, device) == CUDA_SUCCESS) p.name = names->intern(name);
  return p;
}

}  // namespace mlprof::capture::gpu
